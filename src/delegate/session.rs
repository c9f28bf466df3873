//! Reading a pi session file's metadata for a continuation: the header's cwd and id,
//! and the model the session ran on (the last assistant message's provider/model,
//! else the last `model_change`). `role: "system"` messages (pi 1.6) are skipped.
//! Lines are framed with the bounded [`LineFramer`], so a huge session costs no more
//! memory than one line. The file is opened through the one bounded reader
//! ([`crate::fs::read::open`], [`Kind::Session`]): non-blocking, without following a
//! symlink, a regular file, at most the kind's cap.

use std::path::Path;

use crate::fs::Kind;

use serde::Deserialize;

use super::stream::{Line, LineFramer};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SessionMeta {
    pub id: Option<String>,
    pub cwd: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    cwd: Option<String>,
    provider: Option<String>,
    model_id: Option<String>,
    message: Option<Msg>,
}

#[derive(Deserialize)]
struct Msg {
    role: Option<String>,
    provider: Option<String>,
    model: Option<String>,
}

/// Read the metadata; `Err` says why it is unavailable.
pub(crate) fn read_meta(path: &Path) -> Result<SessionMeta, String> {
    // Non-blocking and type-checked before reading: a FIFO or device never hangs pwk.
    let why = |e: crate::fs::ReadError| format!("{} {e}", path.display());
    let mut f = crate::fs::read::open(path, Kind::Session).map_err(why)?;
    let mut meta = SessionMeta::default();
    let mut header_seen = false;
    let mut from_change: (Option<String>, Option<String>) = (None, None);
    let mut framer = LineFramer::default();
    let mut buf = vec![0u8; 64 << 10];
    let mut first = true;
    let mut on_line = |line: Line<'_>| {
        let Line::Complete(bytes) = line else { return };
        let Ok(e) = serde_json::from_slice::<Entry>(bytes) else {
            return;
        };
        match e.kind.as_deref() {
            Some("session") if first => {
                header_seen = true;
                meta.id = e.id;
                meta.cwd = e.cwd;
            }
            Some("model_change") => from_change = (e.provider, e.model_id),
            Some("message") => {
                if let Some(m) = e.message
                    && m.role.as_deref() == Some("assistant")
                    && m.model.is_some()
                {
                    meta.provider = m.provider;
                    meta.model = m.model;
                }
            }
            _ => {}
        }
        first = false;
    };
    loop {
        let n = f.read(&mut buf).map_err(why)?;
        if n == 0 {
            break;
        }
        framer.push(&buf[..n], &mut on_line);
    }
    framer.finish(&mut on_line);
    if !header_seen {
        return Err(format!(
            "{} does not start with a pi session header",
            path.display()
        ));
    }
    if meta.model.is_none() {
        meta.provider = from_change.0;
        meta.model = from_change.1;
    }
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_assistant_model_wins_and_system_is_skipped() {
        let dir = std::env::temp_dir().join(format!("pwk-session-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("s.jsonl");
        std::fs::write(
            &p,
            concat!(
                r#"{"type":"session","version":3,"id":"abc","timestamp":"t","cwd":"/w"}"#, "\n",
                r#"{"type":"model_change","id":"1","parentId":null,"provider":"mock","modelId":"mock-model"}"#, "\n",
                r#"{"type":"message","id":"2","message":{"role":"system","content":""}}"#, "\n",
                r#"{"type":"message","id":"3","message":{"role":"assistant","content":[],"provider":"mock","model":"mock-reasoner"}}"#, "\n",
            ),
        )
        .unwrap();
        let m = read_meta(&p).unwrap();
        assert_eq!(m.cwd.as_deref(), Some("/w"));
        assert_eq!(m.model.as_deref(), Some("mock-reasoner"));
        std::fs::write(&p, "{}\n").unwrap();
        assert!(read_meta(&p).is_err());
        // The bounded reader's checks: a symlink, a FIFO and a directory are refused
        // (without blocking on the FIFO).
        let link = dir.join("l.jsonl");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert!(read_meta(&link).unwrap_err().contains("symbolic link"));
        let fifo = dir.join("f.jsonl");
        let _ = std::fs::remove_file(&fifo);
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(read_meta(&fifo).unwrap_err().contains("not a regular file"));
        assert!(read_meta(&dir).unwrap_err().contains("not a regular file"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
