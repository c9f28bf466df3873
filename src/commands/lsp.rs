//! Command glue for `pwk lsp`: the stdio connection, options from the flags and
//! the environment, the exit status the protocol asks for (0 after `shutdown` and
//! `exit`, 1 otherwise).

use crate::cli::LspArgs;
use crate::display::eprintln_safe;
use crate::lsp::{Options, ServeError, serve};
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &LspArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    // The one project-root rule (`--dir` must name an existing directory); the
    // server then follows the client's workspace folders unless `--dir` fixed it.
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            config: args.config.file.as_deref(),
            ..Default::default()
        },
    )?;
    let opts = Options {
        cwd: project.cwd,
        root_fixed: args.dir.is_some(),
        home: ctx.env.home.clone(),
        agent_dir: ctx.env.agent_dir(),
        host: args.host.clone(),
        config: project.config_file,
        pi: crate::pi::locate(&ctx.env).ok(),
    };
    // pwk's bounded framing (caps on Content-Length and header lines, an error
    // response for a bad message), not lsp-server's reader.
    let (conn, io) = crate::lsp::framing::stdio();
    let result = serve(&conn, opts);
    drop(conn);
    let status = match result {
        Ok(()) => ExitStatus::Success,
        Err(ServeError::Disconnected) => {
            eprintln_safe("pwk lsp: the client closed the connection without shutdown and exit");
            ExitStatus::Failure
        }
        Err(e) => {
            eprintln_safe(&format!(
                "pwk lsp: {}",
                crate::text::escape_block(&e.to_string())
            ));
            ExitStatus::Failure
        }
    };
    // The reader thread ends at `exit` or end of input; the writer once the
    // connection is dropped.
    if matches!(status, ExitStatus::Success) {
        io.join()?;
    }
    Ok(status)
}
