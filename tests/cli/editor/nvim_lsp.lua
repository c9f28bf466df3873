-- Neovim's built-in LSP client attached to `pwk lsp` on one role file: reads the
-- diagnostics back with vim.diagnostic.get(), applies the preferred quick fix for
-- the `invalid-type` finding, waits for the finding to go, and writes what it saw
-- as JSON to $PWK_OUT. Written for Neovim 0.7 (Debian 12) and later:
-- vim.lsp.start_client + vim.lsp.buf_attach_client (vim.lsp.start needs 0.8).
local pwk = os.getenv("PWK_BIN")
local root = os.getenv("PWK_ROOT")
local file = os.getenv("PWK_FILE")
local out = os.getenv("PWK_OUT")
local result = {}

local function finish(err)
  result.error = err
  local f = assert(io.open(out, "w"))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qa!")
end

local function record(list)
  local t = {}
  for _, d in ipairs(list) do
    table.insert(t, {
      code = d.code, lnum = d.lnum, col = d.col, end_lnum = d.end_lnum,
      end_col = d.end_col, severity = d.severity, message = d.message, source = d.source,
    })
  end
  table.sort(t, function(a, b)
    if a.lnum ~= b.lnum then return a.lnum < b.lnum end
    if a.col ~= b.col then return a.col < b.col end
    return a.code < b.code
  end)
  return t
end

local ok, err = pcall(function()
  result.nvim = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({ name = "pwk", cmd = { pwk, "lsp" }, root_dir = root })
  assert(id, "vim.lsp.start_client failed")
  assert(vim.lsp.buf_attach_client(buf, id), "buf_attach_client failed")
  local function diags() return vim.diagnostic.get(buf) end
  -- The finding on the quoted `max_turns`.
  local function quoted()
    for _, d in ipairs(diags()) do
      if d.code == "invalid-type" and d.message:find("max_turns", 1, true) then return d end
    end
    return nil
  end
  assert(vim.wait(30000, function() return quoted() ~= nil end, 20),
    "no invalid-type diagnostic on max_turns from pwk lsp")
  result.before = record(diags())
  local client = vim.lsp.get_client_by_id(id)
  result.offset_encoding = client.offset_encoding
  local target = quoted()
  -- Back from Neovim's byte columns to the client's encoding.
  local function pos(row, col)
    return { line = row, character = vim.lsp.util.character_offset(buf, row, col, client.offset_encoding) }
  end
  local range = { start = pos(target.lnum, target.col), ["end"] = pos(target.end_lnum, target.end_col) }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = range,
    context = {
      diagnostics = { { range = range, message = target.message, code = target.code, severity = target.severity, source = target.source } },
      only = { "quickfix" },
    },
  }
  local resp = client.request_sync("textDocument/codeAction", params, 20000, buf)
  assert(resp and resp.result, "no answer to codeAction: " .. vim.inspect(resp))
  local action
  for _, a in ipairs(resp.result) do
    if a.isPreferred then action = a end
  end
  assert(action, "no preferred quick fix: " .. vim.inspect(resp.result))
  result.action = action.title
  vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
  assert(vim.wait(30000, function() return quoted() == nil end, 20),
    "the invalid-type finding is still there after applying the fix")
  result.after = record(diags())
  result.text = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local hover = client.request_sync("textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 1, character = 1 },
  }, 20000, buf)
  result.hover = hover and hover.result and hover.result.contents.value or vim.NIL
  client.stop()
end)
finish(ok and vim.NIL or tostring(err))
