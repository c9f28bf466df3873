//! The human front doors' inputs: the review packet file and the prompts built
//! for `pwk recon` and `pwk review`.

use std::path::Path;

/// Packets larger than this are refused: reviewers read the listed files
/// themselves, the packet only points at them.
pub(crate) const MAX_PACKET_BYTES: u64 = crate::fs::Kind::Packet.cap();

/// Why a packet could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PacketError {
    #[error("does not exist")]
    NotFound,
    #[error("is a symbolic link; pass the packet file itself")]
    Symlink,
    #[error("is not a regular file ({0})")]
    NotRegular(&'static str),
    #[error(
        "is larger than the {MAX_PACKET_BYTES}-byte packet limit; trim the diff or list files instead"
    )]
    TooLarge,
    #[error("is not UTF-8 text (first invalid byte at offset {0})")]
    NotUtf8(usize),
    #[error(
        "is empty; a review packet holds the diff, the acceptance criteria and the changed files"
    )]
    Empty,
    #[error("cannot be read: {0}")]
    Io(#[source] std::io::Error),
}

/// Read a packet without following a symlink, blocking on a FIFO, or reading
/// past the size cap.
pub(crate) fn read_packet(path: &Path) -> Result<String, PacketError> {
    use crate::fs::ReadError;
    let buf = crate::fs::read::read(path, crate::fs::Kind::Packet).map_err(|e| match e {
        ReadError::Symlink(_) => PacketError::Symlink,
        ReadError::NotFound => PacketError::NotFound,
        ReadError::NotRegular(kind) => PacketError::NotRegular(kind),
        ReadError::TooLarge { .. } => PacketError::TooLarge,
        ReadError::Io(e) => PacketError::Io(e),
    })?;
    let text =
        String::from_utf8(buf).map_err(|e| PacketError::NotUtf8(e.utf8_error().valid_up_to()))?;
    if text.trim().is_empty() {
        return Err(PacketError::Empty);
    }
    Ok(text)
}

/// The scout's task: the three inputs its body asks for.
pub(crate) fn recon_prompt(topic: &str, intent: &str, repo_root: &Path) -> String {
    format!(
        "Map how this repository handles the topic below, as your role describes.\n\n\
<topic>\n{}\n</topic>\n\n<intent>\n{}\n</intent>\n\nRepository root: {}\n",
        topic.trim(),
        intent.trim(),
        repo_root.display()
    )
}

/// The reviewers' task: the packet, verbatim.
pub(crate) fn review_prompt(packet: &str, repo_root: &Path) -> String {
    format!(
        "Review this feature as your role describes. The review packet follows (diff, acceptance criteria, \
changed files). Repository root: {}\n\n<review-packet>\n{}\n</review-packet>\n",
        repo_root.display(),
        packet.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_reading_is_safe() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("packet.md");
        std::fs::write(&p, "## Requirement 1\nDo X\n").unwrap();
        assert!(read_packet(&p).unwrap().contains("Requirement 1"));
        assert!(matches!(
            read_packet(&dir.path().join("nope")),
            Err(PacketError::NotFound)
        ));
        std::os::unix::fs::symlink(&p, dir.path().join("link")).unwrap();
        assert!(matches!(
            read_packet(&dir.path().join("link")),
            Err(PacketError::Symlink)
        ));
        assert!(matches!(
            read_packet(dir.path()),
            Err(PacketError::NotRegular("directory"))
        ));
        std::fs::write(&p, " \n").unwrap();
        assert!(matches!(read_packet(&p), Err(PacketError::Empty)));
        std::fs::write(&p, b"ok\xff").unwrap();
        assert!(matches!(read_packet(&p), Err(PacketError::NotUtf8(2))));
        std::fs::write(&p, vec![b'a'; MAX_PACKET_BYTES as usize + 1]).unwrap();
        assert!(matches!(read_packet(&p), Err(PacketError::TooLarge)));
    }

    #[test]
    fn prompts_carry_the_inputs_verbatim() {
        let p = recon_prompt("session $HOME `x`", "add expiry", Path::new("/repo"));
        assert!(p.contains("<topic>\nsession $HOME `x`\n</topic>"));
        assert!(p.contains("Repository root: /repo"));
        let r = review_prompt("diff --git a b\n", Path::new("/repo"));
        assert!(r.contains("<review-packet>\ndiff --git a b\n</review-packet>"));
    }
}
