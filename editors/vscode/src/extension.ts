// Starts `pwk lsp` for Markdown files and hands it the role files: pwk itself
// decides which buffers it serves (files in the agents directories the host
// reads, or any `.md` whose first line is `---`) and answers the others empty.
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration("pwk");
  const command = config.get<string>("path", "pwk");
  const host = config.get<string>("host", "auto");
  const serverOptions: ServerOptions = {
    run: { command, args: ["lsp"], transport: TransportKind.stdio },
    debug: { command, args: ["lsp"], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "markdown" }],
    initializationOptions: { host },
    synchronize: {
      fileEvents: [
        vscode.workspace.createFileSystemWatcher("**/*.md"),
        vscode.workspace.createFileSystemWatcher("**/pwk.toml"),
        vscode.workspace.createFileSystemWatcher("**/settings.json"),
      ],
    },
  };
  client = new LanguageClient("pwk", "pwk", serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("pwk") && client) {
        await client.restart();
      }
    }),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
  }
}
