//! `einsum`'s subscripts, read and checked against the operands' shapes by
//! one function (`spec`) that `arr check` calls with the shapes it knows and
//! the run with the arrays' own, so that where the checker knows the
//! operands' shapes it reports the run's errors, with the run's messages.

use super::shape::Dim;
use crate::diag::Diagnostic;
use crate::syntax::ast::Span;

/// Labels of einsum axes: letters by their code, the axes an ellipsis stands
/// for as `ELLIPSIS + k` (aligned from the right, as they broadcast).
const ELLIPSIS: u32 = 1 << 16;

/// What the subscripts say about the operands.
pub struct Spec {
    /// Each operand's labels as written, its `...` expanded (a label
    /// repeated within a term takes the diagonal of its axes).
    pub terms: Vec<Vec<u32>>,
    /// The result's labels, in order.
    pub output: Vec<u32>,
    /// Every label: the output's, then the summed ones as they first appear.
    pub all: Vec<u32>,
    /// The size of each label of `all`, where the shapes give it.
    pub sizes: Vec<Dim>,
}

/// E0220: subscripts that do not fit the operands, with how they are written.
pub fn einsum_error(message: impl Into<String>, span: &Span) -> Diagnostic {
    Diagnostic::new("E0220", message, span.clone())
        .with_hint("subscripts look like \"ij,jk->ik\": one letter per axis, `...` for leading axes")
}

/// Reads `sub` for operands of `shapes` (each of known rank): E0220 for
/// subscripts that do not fit them, E0200 for a label whose axes have sizes
/// that do not broadcast.
pub fn spec(sub: &str, shapes: &[&[Dim]], sub_span: &Span, span: &Span) -> Result<Spec, Diagnostic> {
    let sub: String = sub.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match sub.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (sub.as_str(), None),
    };
    let written: Vec<&str> = lhs.split(',').collect();
    if written.len() != shapes.len() {
        return Err(einsum_error(
            format!(
                "einsum subscripts name {} operands, but {} were given",
                written.len(),
                shapes.len()
            ),
            sub_span,
        ));
    }
    // the ellipsis rank: the most axes any operand's `...` stands for
    let mut ell = 0;
    for (t, s) in written.iter().zip(shapes) {
        ell = ell.max(term_labels(t, Some(s.len()), 0, sub_span)?.1);
    }
    let mut terms = Vec::with_capacity(shapes.len());
    // each operand's labels once its diagonals are taken, with their sizes
    let mut reduced: Vec<Vec<(u32, Dim)>> = Vec::with_capacity(shapes.len());
    for (t, s) in written.iter().zip(shapes) {
        let (labels, _) = term_labels(t, Some(s.len()), ell, sub_span)?;
        let mut axes: Vec<(u32, Dim)> = Vec::with_capacity(labels.len());
        for (&l, &d) in labels.iter().zip(s.iter()) {
            match axes.iter().find(|(m, _)| *m == l) {
                Some(&(_, Some(first))) if d.is_some_and(|d| d != first) => {
                    return Err(einsum_error(
                        format!(
                            "einsum label '{}' repeats on axes of sizes {first} and {}",
                            label_name(l),
                            d.unwrap_or(0)
                        ),
                        sub_span,
                    ));
                }
                Some(_) => {}
                None => axes.push((l, d)),
            }
        }
        terms.push(labels);
        reduced.push(axes);
    }
    let output: Vec<u32> = match rhs {
        Some(r) => {
            let (labels, _) = term_labels(r, None, ell, sub_span)?;
            if let Some((_, j)) = repeated(&labels) {
                return Err(einsum_error(
                    format!("einsum output label '{}' appears more than once", label_name(labels[j])),
                    sub_span,
                ));
            }
            if ell > 0 && !r.contains("...") {
                return Err(einsum_error(
                    "einsum output has no '...' for the axes the inputs' '...' stand for",
                    sub_span,
                ));
            }
            for l in &labels {
                if !reduced.iter().any(|axes| axes.iter().any(|(m, _)| m == l)) {
                    return Err(einsum_error(
                        format!("einsum output label '{}' is in no input", label_name(*l)),
                        sub_span,
                    ));
                }
            }
            labels
        }
        None => {
            // the ellipsis axes, then the letters written once, sorted
            let mut out: Vec<u32> = (0..ell as u32).map(|k| ELLIPSIS + k).collect();
            let mut letters: Vec<u32> = Vec::new();
            for axes in &reduced {
                for &(l, _) in axes {
                    if l < ELLIPSIS && !letters.contains(&l) {
                        letters.push(l);
                    }
                }
            }
            letters.retain(|l| {
                written
                    .iter()
                    .map(|t| t.chars().filter(|&c| c as u32 == *l).count())
                    .sum::<usize>()
                    == 1
            });
            letters.sort_unstable();
            out.extend(letters);
            out
        }
    };
    // every label's size; an ellipsis axis of size 1 broadcasts
    let mut all: Vec<u32> = output.clone();
    for axes in &reduced {
        for &(l, _) in axes {
            if !all.contains(&l) {
                all.push(l);
            }
        }
    }
    let mut sizes: Vec<Dim> = vec![Some(1); all.len()];
    for axes in &reduced {
        for &(l, d) in axes {
            let p = all.iter().position(|&m| m == l).unwrap_or(0);
            match (sizes[p], d) {
                (Some(1), d) => sizes[p] = d.map(|d| d.max(1)),
                (_, Some(1)) if l >= ELLIPSIS => {}
                (Some(seen), Some(d)) if seen != d => {
                    return Err(Diagnostic::new(
                        "E0200",
                        format!("einsum label '{}' has sizes {seen} and {d}", label_name(l)),
                        span.clone(),
                    ));
                }
                (Some(_), Some(_)) => {}
                // an unknown size: the label's size is not known either
                (_, None) | (None, _) => sizes[p] = None,
            }
        }
    }
    Ok(Spec {
        terms,
        output,
        all,
        sizes,
    })
}

/// The labels of one einsum term (`ij`, `...ij`), given the operand's rank
/// (`None` for the output) and the ellipsis rank `ell`.
fn term_labels(term: &str, rank: Option<usize>, ell: usize, span: &Span) -> Result<(Vec<u32>, usize), Diagnostic> {
    let (head, tail, has_ell) = match term.find("...") {
        Some(p) => (&term[..p], &term[p + 3..], true),
        None => (term, "", false),
    };
    for c in head.chars().chain(tail.chars()) {
        if !c.is_ascii_alphabetic() {
            return Err(einsum_error(format!("invalid subscript '{c}' in einsum"), span));
        }
    }
    let letters = head.len() + tail.len();
    let n_ell = match (rank, has_ell) {
        (Some(r), false) if r != letters => {
            return Err(einsum_error(
                format!("einsum term '{term}' has {letters} subscripts for an operand of rank {r}"),
                span,
            ));
        }
        (Some(r), true) if r < letters => {
            return Err(einsum_error(
                format!("einsum term '{term}' has more subscripts than its operand's rank {r}"),
                span,
            ));
        }
        (Some(r), true) => r - letters,
        (None, true) => ell,
        (_, false) => 0,
    };
    let mut labels: Vec<u32> = head.chars().map(|c| c as u32).collect();
    labels.extend((0..n_ell).map(|k| ELLIPSIS + (ell.max(n_ell) - n_ell + k) as u32));
    labels.extend(tail.chars().map(|c| c as u32));
    Ok((labels, n_ell))
}

/// The first pair of positions holding one label, if any.
pub fn repeated(labels: &[u32]) -> Option<(usize, usize)> {
    for j in 0..labels.len() {
        if let Some(i) = labels[..j].iter().position(|&l| l == labels[j]) {
            return Some((i, j));
        }
    }
    None
}

fn label_name(l: u32) -> String {
    if l >= ELLIPSIS {
        "...".to_string()
    } else {
        char::from_u32(l).map(String::from).unwrap_or_default()
    }
}
