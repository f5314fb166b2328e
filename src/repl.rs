//! The interactive loop: a rustyline editor (history, completion, multi-line
//! input with a `...` prompt while brackets or blocks are open) in front of a
//! `Session`, plus the `:` commands. Piped stdin gets the same evaluation
//! without prompts. Ctrl-C during a statement stops it (E0407) and keeps the
//! session; history is saved after every input, so no way out loses it.

use arr::{Diagnostic, Session};
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{
    CompletionType, ConditionalEventHandler, Config, Context, Editor, Event, EventContext, EventHandler, Helper,
    Highlighter, Hinter, KeyEvent, RepeatCount, Validator,
};
use std::io::{BufRead, IsTerminal, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The REPL commands, with the line `:help` shows for each.
const COMMANDS: &[(&str, &str)] = &[
    (":type EXPR", "show the dtype and shape of EXPR without running it"),
    (":explain EXPR", "show the kernels EXPR compiles to"),
    (
        ":help [NAME]",
        "list builtins and commands, or describe a builtin, stdlib function, keyword or error code (E0200)",
    ),
    (
        ":quit, :q",
        "leave (Ctrl-D, or Ctrl-C twice at an empty prompt, does too)",
    ),
];

/// What `:help` says about Ctrl-C.
const CTRL_C_HELP: &str = "\
Ctrl-C stops the running statement (error E0407) between statements, loop
iterations and kernels; variables keep what finished statements and loop
iterations gave them. A second Ctrl-C while one long kernel cannot stop ends arr.
";

/// The keywords, with the line `:help KEYWORD` shows.
const KEYWORDS: &[(&str, &str)] = &[
    (
        "let",
        "let NAME = EXPR — define a variable (`let (a, b) = f(x)` unpacks a tuple)",
    ),
    (
        "fn",
        "fn NAME(PARAMS) = EXPR  or  fn NAME(PARAMS) { ... } — define a function",
    ),
    ("for", "for i in A..B { ... } — loop with i = A, A+1, ..., B-1"),
    ("in", "for i in A..B — the range a `for` loop runs over"),
    ("while", "while COND { ... } — loop while the bool scalar COND is true"),
    (
        "if",
        "if COND { ... } else { ... } — COND is one bool; `if` is an expression",
    ),
    ("else", "if COND { ... } else { ... }"),
    ("true", "the bool true"),
    ("false", "the bool false"),
    (
        "and",
        "A and B — elementwise logical and (also for chained comparisons: `1 < x and x < 3`)",
    ),
    ("or", "A or B — elementwise logical or"),
    ("not", "not A — elementwise logical not"),
    ("as", "X as DTYPE — convert to a dtype: `x as f32`"),
    (
        "newaxis",
        "x[newaxis, :] — insert an axis of length 1 (NumPy's np.newaxis)",
    ),
    ("break", "break — leave the innermost loop"),
    (
        "continue",
        "continue — go on with the next iteration of the innermost loop",
    ),
];

/// The error-code reference, for `:help E0200`.
const ERRORS_MD: &str = include_str!("../docs/errors.md");
/// The standard library's source, for `:help var` (its comments are its docs).
const STDLIB_SOURCE: &str = include_str!("../stdlib/core.arr");
/// What `:` may be followed by (for completion and suggestions).
const COMMAND_NAMES: &[&str] = &["type", "explain", "help", "quit", "q"];

/// Runs the REPL on `session` until `:quit` or end of input. Returns the
/// process exit code: 0, or 1 when piped input had any error.
pub fn run(session: Session) -> i32 {
    arr::interrupt::install_handler();
    let mut repl = Repl {
        session,
        color: std::io::stderr().is_terminal(),
        had_error: false,
        interrupted: false,
    };
    if std::io::stdin().is_terminal() {
        repl.interactive();
        0
    } else {
        repl.piped(std::io::stdin().lock());
        if repl.interrupted {
            130
        } else {
            i32::from(repl.had_error)
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flow {
    Continue,
    Quit,
}

struct Repl {
    session: Session,
    color: bool,
    had_error: bool,
    /// The last input was stopped by Ctrl-C.
    interrupted: bool,
}

impl Repl {
    fn interactive(&mut self) {
        let config = Config::builder()
            .history_ignore_space(true)
            .completion_type(CompletionType::List)
            .build();
        let mut editor: Editor<ArrHelper, DefaultHistory> = match Editor::with_config(config) {
            Ok(editor) => editor,
            Err(e) => {
                eprintln!("error: cannot start the line editor ({e}); reading plain lines");
                self.piped(std::io::stdin().lock());
                return;
            }
        };
        editor.set_helper(Some(ArrHelper {
            names: self.completion_names(),
        }));
        let ctrl_c_on_empty = Arc::new(AtomicBool::new(false));
        editor.bind_sequence(
            KeyEvent::ctrl('C'),
            EventHandler::Conditional(Box::new(NoteEmptyLine(ctrl_c_on_empty.clone()))),
        );
        let history = history_path();
        if let Some(path) = &history {
            let _ = editor.load_history(path);
        }
        println!(
            "Arr 0.1 — backend: {} — :help for help, :quit to leave",
            self.session.backend_name()
        );
        // The lines of an input still open (a bracket or block), and whether the
        // last key was Ctrl-C at an empty prompt (a second one leaves).
        let mut pending = String::new();
        let mut ctrl_c_once = false;
        loop {
            let prompt = if pending.is_empty() { "arr> " } else { "...  " };
            arr::interrupt::set_at_prompt(true);
            let read = editor.readline(prompt);
            arr::interrupt::set_at_prompt(false);
            match read {
                Ok(line) => {
                    ctrl_c_once = false;
                    if !pending.is_empty() {
                        pending.push('\n');
                    }
                    pending.push_str(&line);
                    if needs_more(&pending) {
                        continue;
                    }
                    let input = std::mem::take(&mut pending);
                    if !input.trim().is_empty() {
                        let _ = editor.add_history_entry(input.as_str());
                        // Saved now, not at the end: a way out that skips the end keeps it too.
                        if let Some(path) = &history {
                            let _ = editor.save_history(path);
                        }
                    }
                    if self.handle(&input) == Flow::Quit {
                        break;
                    }
                    if let Some(helper) = editor.helper_mut() {
                        helper.names = self.completion_names();
                    }
                }
                // Ctrl-C abandons the current input, as in most shells; twice at an empty prompt leaves.
                Err(ReadlineError::Interrupted) => {
                    if !pending.is_empty() || !ctrl_c_on_empty.load(Ordering::Relaxed) {
                        pending.clear();
                        ctrl_c_once = false;
                    } else if ctrl_c_once {
                        break;
                    } else {
                        ctrl_c_once = true;
                        println!("(Ctrl-C again or Ctrl-D to leave)");
                    }
                }
                Err(ReadlineError::Eof) => break,
                Err(e) => {
                    eprintln!("error: cannot read input: {e}");
                    break;
                }
            }
        }
        if let Some(path) = &history {
            let _ = editor.save_history(path);
        }
    }

    /// Reads lines, gathering them while the input is incomplete, without
    /// prompts. Input still open at end of file is evaluated anyway so that
    /// its error is reported rather than dropped.
    fn piped(&mut self, input: impl BufRead) {
        let mut pending = String::new();
        for line in input.lines() {
            let line = match line {
                Ok(line) => line,
                Err(e) => {
                    eprintln!("error: cannot read input: {e}");
                    self.had_error = true;
                    return;
                }
            };
            if !pending.is_empty() {
                pending.push('\n');
            }
            pending.push_str(&line);
            if needs_more(&pending) {
                continue;
            }
            let source = std::mem::take(&mut pending);
            // A script fed on stdin stops at Ctrl-C, as `arr run` does.
            if self.handle(&source) == Flow::Quit || self.interrupted {
                return;
            }
        }
        if !pending.trim().is_empty() {
            self.handle(&pending);
        }
    }

    /// One complete input: a `:` command or source for the session.
    fn handle(&mut self, input: &str) -> Flow {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Flow::Continue;
        }
        arr::interrupt::clear();
        self.interrupted = false;
        let Some(command) = trimmed.strip_prefix(':') else {
            let result = self.guarded(|session| session.eval(input));
            match result {
                Ok(Some(text)) => println!("{text}"),
                Ok(None) => {}
                Err(diags) => self.report(&diags),
            }
            return Flow::Continue;
        };
        let (name, rest) = match command.split_once(char::is_whitespace) {
            Some((name, rest)) => (name, rest.trim()),
            None => (command, ""),
        };
        match name {
            "q" | "quit" => return Flow::Quit,
            "help" if rest.is_empty() => print!("{}", general_help()),
            "help" => match help_topic(rest) {
                Some(text) => println!("{}", text.trim_end()),
                None => {
                    let mut names = arr::check::builtins::names();
                    names.extend(stdlib_functions().into_iter().map(|(name, _)| name));
                    names.extend(KEYWORDS.iter().map(|(k, _)| *k));
                    let hint = match arr::diag::closest(rest, names.iter().copied()) {
                        Some(near) => format!("; did you mean `{near}`?"),
                        None => String::new(),
                    };
                    self.complain(&format!(
                        "no builtin, stdlib function, keyword or error code named `{rest}`{hint}"
                    ));
                }
            },
            "type" | "explain" if rest.is_empty() => self.complain(&format!("usage: :{name} EXPR")),
            "type" => match self.guarded(|session| session.type_of(rest)) {
                Ok(text) => println!("{text}"),
                Err(diags) => self.report(&diags),
            },
            "explain" => match self.guarded(|session| session.explain(rest)) {
                Ok(text) => println!("{}", text.trim_end()),
                Err(diags) => self.report(&diags),
            },
            _ => {
                let hint = match arr::diag::closest(name, COMMAND_NAMES.iter().copied()) {
                    Some(near) => format!("did you mean `:{near}`? "),
                    None => String::new(),
                };
                self.complain(&format!("unknown command `:{name}`; {hint}:help lists the commands"));
            }
        }
        Flow::Continue
    }

    /// Runs a session call, turning a panic inside the library into an
    /// error so that the REPL, and the variables defined so far, survive it.
    fn guarded<T>(
        &mut self,
        call: impl FnOnce(&mut Session) -> Result<T, Vec<Diagnostic>>,
    ) -> Result<T, Vec<Diagnostic>> {
        let session = &mut self.session;
        match catch_unwind(AssertUnwindSafe(|| call(session))) {
            Ok(result) => result,
            Err(_) => Err(vec![Diagnostic::spanless(
                "E0499",
                "internal error: the interpreter panicked (this is a bug in arr; the message is above)",
            )]),
        }
    }

    fn report(&mut self, diags: &[Diagnostic]) {
        self.had_error = true;
        self.interrupted |= diags.iter().any(|d| d.code == "E0407");
        let color = self.color;
        let text = match catch_unwind(AssertUnwindSafe(|| self.session.render(diags, color))) {
            Ok(text) => text,
            Err(_) => diags.iter().map(|d| format!("{d}\n")).collect(),
        };
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(text.as_bytes());
        if !text.ends_with('\n') {
            let _ = stderr.write_all(b"\n");
        }
    }

    fn complain(&mut self, message: &str) {
        self.had_error = true;
        eprintln!("error: {message}");
    }

    fn completion_names(&self) -> Vec<String> {
        let mut names: Vec<String> = arr::check::builtins::names().into_iter().map(str::to_string).collect();
        if let Ok(session_names) = catch_unwind(AssertUnwindSafe(|| self.session.names())) {
            names.extend(session_names);
        }
        names.sort();
        names.dedup();
        names
    }
}

/// True while `source` is source code that ended early (an open bracket or
/// block); commands are always one line.
fn needs_more(source: &str) -> bool {
    !source.trim_start().starts_with(':') && catch_unwind(|| arr::syntax::is_incomplete(source)).unwrap_or(false)
}

fn general_help() -> String {
    let mut text = String::from("Commands:\n");
    let width = COMMANDS.iter().map(|(usage, _)| usage.len()).max().unwrap_or(0);
    for (usage, what) in COMMANDS {
        text.push_str(&format!("  {usage:width$}  {what}\n"));
    }
    let builtins = arr::check::builtins::names();
    if builtins.is_empty() {
        text.push_str("Builtins: (list not available yet)\n");
    } else {
        text.push_str("Builtins (:help NAME for one):\n");
        text.push_str(&wrap_words(&builtins, 76, "  "));
    }
    text.push_str("Anything else is Arr source; a bare expression shows its value.\n");
    text.push_str(CTRL_C_HELP);
    text
}

/// What `:help NAME` shows: a builtin, a stdlib function, a keyword or an
/// error code, in that order; `None` when NAME is none of them.
fn help_topic(name: &str) -> Option<String> {
    if let Some(text) = arr::check::builtins::help(name) {
        return Some(text);
    }
    if let Some((_, text)) = stdlib_functions().into_iter().find(|(n, _)| *n == name) {
        return Some(text);
    }
    if let Some((_, text)) = KEYWORDS.iter().find(|(k, _)| *k == name) {
        return Some(text.to_string());
    }
    error_help(name)
}

/// Every function of the standard library, with its help text: the comment
/// above it, then its signature.
fn stdlib_functions() -> Vec<(&'static str, String)> {
    let mut found = Vec::new();
    let mut comment: Vec<&str> = Vec::new();
    for line in STDLIB_SOURCE.lines() {
        if let Some(text) = line.strip_prefix('#') {
            comment.push(text.trim());
            continue;
        }
        if let Some(rest) = line.strip_prefix("fn ")
            && let Some(open) = rest.find('(')
        {
            let name = &rest[..open];
            // The signature ends at the parameter list's closing bracket.
            let mut depth = 0usize;
            let close = rest[open..]
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '(' | '[' => depth += 1,
                        ')' | ']' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(rest.len(), |(i, _)| open + i + 1);
            let mut text = format!("{} (standard library)", &rest[..close]);
            if !comment.is_empty() {
                text.push_str(&format!("\n  {}", comment.join(" ")));
            }
            found.push((name, text));
        }
        comment.clear();
    }
    found
}

/// The section of docs/errors.md on one error code (`E0200`, `e0200`, `0200`).
fn error_help(code: &str) -> Option<String> {
    let digits = code.strip_prefix(['E', 'e']).unwrap_or(code);
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let heading = format!("### E{digits}:");
    let start = ERRORS_MD.find(&heading)?;
    let body = &ERRORS_MD[start + 4..];
    let end = body.find("\n#").map_or(body.len(), |i| i + 1);
    Some(body[..end].trim_end().to_string())
}

/// Words joined with spaces into lines of at most `width` columns.
fn wrap_words(words: &[&str], width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > width {
            out.push_str(&format!("{indent}{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{indent}{line}\n"));
    }
    out
}

fn history_path() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))?;
    Some(PathBuf::from(home).join(".arr_history"))
}

/// Completion candidates for the word ending at `pos`: `:` commands at the
/// start of a line, otherwise builtins and the session's names.
fn complete_word(line: &str, pos: usize, names: &[String]) -> (usize, Vec<String>) {
    let before = &line[..pos];
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(pos, |(i, _)| i);
    let word = &before[start..];
    if start > 0 && before[..start].trim_start() == ":" {
        let found = COMMAND_NAMES
            .iter()
            .filter(|c| c.starts_with(word))
            .map(|c| c.to_string())
            .collect();
        return (start, found);
    }
    if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
        return (pos, Vec::new());
    }
    (start, names.iter().filter(|n| n.starts_with(word)).cloned().collect())
}

/// Ctrl-C's key binding: keeps the default (abandon the line) and notes
/// whether the line was empty, which the line editor's error does not say.
struct NoteEmptyLine(Arc<AtomicBool>);

impl ConditionalEventHandler for NoteEmptyLine {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<rustyline::Cmd> {
        self.0.store(ctx.line().is_empty(), Ordering::Relaxed);
        None
    }
}

#[derive(Helper, Hinter, Highlighter, Validator)]
struct ArrHelper {
    /// Builtins plus the session's names, refreshed after every input.
    names: Vec<String>,
}

impl Completer for ArrHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, found) = complete_word(line, pos, &self.names);
        Ok((
            start,
            found
                .into_iter()
                .map(|name| Pair {
                    display: name.clone(),
                    replacement: name,
                })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn completes_names_by_prefix() {
        let known = names(&["matmul", "max", "mean", "x_total"]);
        assert_eq!(complete_word("let y = ma", 10, &known), (8, names(&["matmul", "max"])));
        assert_eq!(complete_word("x_t", 3, &known), (0, names(&["x_total"])));
        assert_eq!(complete_word("sum(me", 6, &known), (4, names(&["mean"])));
        // The cursor, not the end of the line, ends the word.
        assert_eq!(complete_word("ma + 1", 2, &known), (0, names(&["matmul", "max"])));
    }

    #[test]
    fn no_completion_for_nothing_or_numbers() {
        let known = names(&["max"]);
        assert_eq!(complete_word("x + ", 4, &known), (4, vec![]));
        assert_eq!(complete_word("12", 2, &known), (2, vec![]));
    }

    #[test]
    fn completes_commands_after_colon() {
        let known = names(&["type_of_thing"]);
        assert_eq!(complete_word(":ty", 3, &known), (1, names(&["type"])));
        assert_eq!(complete_word(":q", 2, &known), (1, names(&["quit", "q"])));
        assert_eq!(complete_word(":", 1, &known).1.len(), COMMAND_NAMES.len());
    }

    #[test]
    fn help_lists_every_command() {
        let help = general_help();
        for name in COMMAND_NAMES {
            assert!(help.contains(&format!(":{name}")), "{name} missing from\n{help}");
        }
    }

    #[test]
    fn help_finds_stdlib_keywords_and_error_codes() {
        let var = help_topic("var").expect("var is in the stdlib");
        assert!(var.starts_with("var(x, axis = none, keepdims = false, ddof = 0) (standard library)"));
        // meshgrid is a builtin now (any number of vectors), found in the builtin table.
        assert!(help_topic("meshgrid").expect("meshgrid").starts_with("meshgrid(*xi"));
        assert!(help_topic("newaxis").expect("keyword").contains("length 1"));
        let e = help_topic("E0200").expect("error code");
        assert!(e.starts_with("E0200: shapes do not broadcast"), "{e}");
        // The entry ends before the next heading.
        assert!(!e.contains("E0201"), "{e}");
        assert_eq!(help_topic("e0200"), help_topic("E0200"));
        assert_eq!(help_topic("E9999"), None);
        assert_eq!(help_topic("nosuch"), None);
    }

    #[test]
    fn every_keyword_of_the_lexer_has_help() {
        for word in [
            "let", "fn", "for", "in", "while", "if", "else", "true", "false", "and", "or", "not",
        ] {
            assert!(help_topic(word).is_some(), "{word}");
        }
        for word in ["as", "newaxis", "break", "continue"] {
            assert!(help_topic(word).is_some(), "{word}");
        }
    }

    #[test]
    fn wraps_word_lists() {
        assert_eq!(wrap_words(&["aa", "bb", "cc"], 9, "  "), "  aa bb\n  cc\n");
        assert_eq!(wrap_words(&[], 9, "  "), "");
    }
}
