//! `file:` URIs ↔ paths (RFC 8089, percent-encoding per RFC 3986).

use std::path::{Path, PathBuf};

use lsp_types::Uri;

/// The local path of a `file:` URI; `None` for any other scheme or a remote host.
pub(crate) fn to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file:///p` or `file://localhost/p`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = decode(path)?;
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// The `file:` URI of an absolute path.
pub(crate) fn from_path(path: &Path) -> Option<Uri> {
    use std::os::unix::ffi::OsStrExt;
    let mut s = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s.parse().ok()
}

fn decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let p = Path::new("/tmp/a b/ré.md");
        let uri = from_path(p).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/r%C3%A9.md");
        assert_eq!(to_path(&uri).unwrap(), p);
        let other: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(to_path(&other), None);
    }
}
