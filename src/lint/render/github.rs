//! `--format github`: GitHub Actions workflow commands, one per finding.

use super::RenderOptions;
use crate::lint::{LintReport, Severity};
use crate::text::escape_line;

/// Escape a workflow command's message (`%`, CR, LF).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow command property (also `:` and `,`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
pub fn render(report: &LintReport, opts: &RenderOptions<'_>) -> String {
    let mut out = String::new();
    for d in report.diagnostics() {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // Untrusted text is made visible first (no control character reaches the
        // log, a line break in it is shown as `\n`), then escaped for GitHub.
        let mut message = escape_line(&d.message).into_owned();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(&escape_line(help));
        }
        out.push_str(&format!(
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            escape_property(&escape_line(&(opts.show_path)(&d.path))),
            d.start.line,
            d.start.column,
            d.end.line,
            d.end.column,
            escape_property(d.rule),
            escape_data(&message),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
