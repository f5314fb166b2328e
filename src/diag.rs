//! The one diagnostic type of every stage, and the one place that renders it
//! (through ariadne). Codes are stable: tests and docs refer to them.

use crate::syntax::ast::Span;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Stable code, `E` + four digits; see `docs/errors.md`.
    pub code: &'static str,
    pub message: String,
    /// Where the error is; `None` only for errors with no source position
    /// (a file that cannot be opened, a device that cannot be reached).
    pub span: Option<Span>,
    /// Secondary spans, each with what it is (an operand's shape, say).
    pub labels: Vec<(Span, String)>,
    /// What to do about it.
    pub hint: Option<String>,
    /// The label on the primary span: the message when `None`, no label at all when empty.
    pub primary_label: Option<String>,
}

impl Diagnostic {
    pub fn new(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span: Some(span),
            labels: Vec::new(),
            hint: None,
            primary_label: None,
        }
    }

    pub fn spanless(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span: None,
            labels: Vec::new(),
            hint: None,
            primary_label: None,
        }
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }

    pub fn with_primary_label(mut self, text: impl Into<String>) -> Diagnostic {
        self.primary_label = Some(text.into());
        self
    }

    pub fn with_hint(mut self, text: impl Into<String>) -> Diagnostic {
        self.hint = Some(text.into());
        self
    }

    /// Gives a span to a diagnostic that was made without one.
    pub fn or_span(mut self, span: &Span) -> Diagnostic {
        if self.span.is_none() {
            self.span = Some(span.clone());
        }
        self
    }

    /// Renders with ariadne. `color: false` gives plain text for snapshots and pipes.
    pub fn render(&self, file_name: &str, source: &str, color: bool) -> String {
        use ariadne::{Config, Label, Report, ReportKind, Source};
        let span = match &self.span {
            Some(span) => clamp(span, source.len()),
            None => {
                let mut text = format!("error[{}]: {}\n", self.code, self.message);
                if let Some(hint) = &self.hint {
                    text.push_str(&format!("  = hint: {hint}\n"));
                }
                return text;
            }
        };
        let id = file_name.to_string();
        let mut report = Report::build(ReportKind::Error, (id.clone(), span.clone()))
            .with_code(self.code)
            .with_message(&self.message)
            .with_config(Config::default().with_color(color).with_index_type(ariadne::IndexType::Byte));
        // An empty primary label means the secondary labels say it all (an operator and its operands).
        match self.primary_label.as_deref() {
            Some("") => {}
            Some(text) => report = report.with_label(Label::new((id.clone(), span)).with_message(text).with_order(0)),
            None => report = report.with_label(Label::new((id.clone(), span)).with_message(&self.message).with_order(0)),
        }
        for (i, (label_span, text)) in self.labels.iter().enumerate() {
            report = report.with_label(
                Label::new((id.clone(), clamp(label_span, source.len())))
                    .with_message(text)
                    .with_order(i as i32 + 1),
            );
        }
        if let Some(hint) = &self.hint {
            report = report.with_help(hint);
        }
        let mut out = Vec::new();
        let cache = (id, Source::from(source));
        if report.finish().write(cache, &mut out).is_err() {
            return format!("error[{}]: {}\n", self.code, self.message);
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

fn clamp(span: &Span, len: usize) -> Span {
    let start = span.start.min(len);
    let end = span.end.clamp(start, len);
    start..end
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.code, self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// Renders several diagnostics, one after another.
pub fn render_all(diags: &[Diagnostic], file_name: &str, source: &str, color: bool) -> String {
    diags.iter().map(|d| d.render(file_name, source, color)).collect::<Vec<_>>().join("")
}

/// Suggests the closest of `candidates` to a misspelt `name`.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|(d, c)| *d <= 2.max(name.len() / 3) && *d < c.len().max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
