//! The interactive loop: a rustyline editor (history, completion, multi-line
//! input while brackets or blocks are open) in front of a `Session`, plus the
//! `:` commands. Piped stdin gets the same evaluation without prompts.

use arr::{Diagnostic, Session};
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Config, Context, Editor, Helper, Highlighter, Hinter};
use std::io::{BufRead, IsTerminal, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

/// The REPL commands, with the line `:help` shows for each.
const COMMANDS: &[(&str, &str)] = &[
    (":type EXPR", "show the dtype and shape of EXPR without running it"),
    (":explain EXPR", "show the kernels EXPR compiles to"),
    (":help [NAME]", "list builtins and commands, or describe one builtin"),
    (":quit, :q", "leave (Ctrl-D does too)"),
];
/// What `:` may be followed by (for completion and suggestions).
const COMMAND_NAMES: &[&str] = &["type", "explain", "help", "quit", "q"];

/// Runs the REPL on `session` until `:quit` or end of input. Returns the
/// process exit code: 0, or 1 when piped input had any error.
pub fn run(session: Session) -> i32 {
    let mut repl = Repl {
        session,
        color: std::io::stderr().is_terminal(),
        had_error: false,
    };
    if std::io::stdin().is_terminal() {
        repl.interactive();
        0
    } else {
        repl.piped(std::io::stdin().lock());
        i32::from(repl.had_error)
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
}

impl Repl {
    fn interactive(&mut self) {
        let config = Config::builder()
            .auto_add_history(true)
            .history_ignore_space(true)
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
        let history = history_path();
        if let Some(path) = &history {
            let _ = editor.load_history(path);
        }
        println!(
            "Arr 0.1 — backend: {} — :help for help, :quit to leave",
            self.session.backend_name()
        );
        loop {
            match editor.readline("arr> ") {
                Ok(line) => {
                    if self.handle(&line) == Flow::Quit {
                        break;
                    }
                    if let Some(helper) = editor.helper_mut() {
                        helper.names = self.completion_names();
                    }
                }
                // Ctrl-C abandons the current input, as in most shells.
                Err(ReadlineError::Interrupted) => continue,
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
            if self.handle(&source) == Flow::Quit {
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
            "help" => match arr::check::builtins::help(rest) {
                Some(text) => println!("{}", text.trim_end()),
                None => {
                    let names = arr::check::builtins::names();
                    let hint = match arr::diag::closest(rest, names.iter().copied()) {
                        Some(near) => format!("; did you mean `{near}`?"),
                        None => String::new(),
                    };
                    self.complain(&format!("no builtin named `{rest}`{hint}"));
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
    !source.trim_start().starts_with(':') && arr::syntax::is_incomplete(source)
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
    text
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

#[derive(Helper, Hinter, Highlighter)]
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

impl Validator for ArrHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        let incomplete = catch_unwind(|| needs_more(input)).unwrap_or(false);
        Ok(if incomplete {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
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
    fn wraps_word_lists() {
        assert_eq!(wrap_words(&["aa", "bb", "cc"], 9, "  "), "  aa bb\n  cc\n");
        assert_eq!(wrap_words(&[], 9, "  "), "");
    }
}
