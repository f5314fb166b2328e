//! AST construction for the grammar's actions. Each builder also tracks the
//! depth of the tree it makes (`D`), and refuses (E0007) to build one deeper
//! than `MAX_DEPTH`: the parser itself is an LR machine with a heap stack,
//! but dropping, printing or evaluating a tree recurses, and a million nested
//! minus signs must not overflow the stack anywhere.

// A parse error carries the shared `Diagnostic`; it is large, but a parse
// fails at most once, so boxing it would buy nothing.
#![allow(clippy::result_large_err)]

use super::ast::*;
use super::token::Tok;
use crate::diag::Diagnostic;
use lalrpop_util::ParseError;
use std::rc::Rc;

/// The deepest syntax tree the parser builds (counting expressions, index
/// items, statements and blocks on the way down, but not the left operands
/// of operator chains). Later passes may recurse this deep.
pub const MAX_DEPTH: u32 = 256;

/// A node with the depth of the tree under it.
pub struct D<T>(pub T, pub u32);

pub type PResult<T> = Result<T, ParseError<usize, Tok, Diagnostic>>;

fn depth(d: u32, span: &Span) -> PResult<u32> {
    if d > MAX_DEPTH {
        return Err(ParseError::User {
            error: Diagnostic::new("E0007", "program nests too deeply", span.clone())
                .with_primary_label(format!("this nests more than {MAX_DEPTH} levels deep"))
                .with_hint("split it into smaller parts with `let`"),
        });
    }
    Ok(d)
}

fn expr(kind: ExprKind, d: u32, span: Span) -> PResult<D<Expr>> {
    let d = depth(d, &span)?;
    Ok(D(Expr { kind, span }, d))
}

fn max_depth<'a, T: 'a>(items: impl IntoIterator<Item = &'a D<T>>) -> u32 {
    items.into_iter().map(|item| item.1).max().unwrap_or(0)
}

pub fn leaf(kind: ExprKind, span: Span) -> D<Expr> {
    D(Expr { kind, span }, 1)
}

/// `(e)` is `e`, with the span widened over the parentheses so that an
/// enclosing expression's span covers its operands' brackets.
pub fn paren(mut e: D<Expr>, span: Span) -> D<Expr> {
    e.0.span = span;
    e
}

pub fn tuple(items: Vec<D<Expr>>, last: Option<D<Expr>>, span: Span) -> PResult<D<Expr>> {
    let items: Vec<D<Expr>> = items.into_iter().chain(last).collect();
    let d = max_depth(&items) + 1;
    expr(ExprKind::Tuple(items.into_iter().map(|e| e.0).collect()), d, span)
}

pub fn array(items: Vec<D<Expr>>, span: Span) -> PResult<D<Expr>> {
    let d = max_depth(&items) + 1;
    expr(ExprKind::ArrayLit(items.into_iter().map(|e| e.0).collect()), d, span)
}

/// A left operand does not count as nesting: `a + b + c` is a chain, not a
/// tower, and programs may hold thousands of terms. Every pass over the tree
/// (checker, interpreter, `Drop for Expr`) takes chains of any length.
pub fn binary(op: BinOp, a: D<Expr>, b: D<Expr>, span: Span) -> PResult<D<Expr>> {
    let d = a.1.max(b.1 + 1);
    expr(ExprKind::Binary(op, Box::new(a.0), Box::new(b.0)), d, span)
}

pub fn unary(op: UnOp, a: D<Expr>, span: Span) -> PResult<D<Expr>> {
    expr(ExprKind::Unary(op, Box::new(a.0)), a.1 + 1, span)
}

pub fn cast(a: D<Expr>, dtype: Ident, span: Span) -> PResult<D<Expr>> {
    expr(ExprKind::Cast(Box::new(a.0), dtype), a.1 + 1, span)
}

pub fn call(func: Ident, args: Vec<D<Box<Arg>>>, span: Span) -> PResult<D<Expr>> {
    // `f(axis=0, x)`: as Python, a positional argument cannot follow a named one
    if let Some(first_named) = args.iter().position(|a| a.0.name.is_some())
        && let Some(late) = args[first_named..].iter().find(|a| a.0.name.is_none())
    {
        let named = args[first_named]
            .0
            .name
            .as_ref()
            .map_or(String::new(), |n| n.name.clone());
        return Err(ParseError::User {
            error: Diagnostic::new(
                "E0001",
                "a positional argument cannot follow a named one",
                late.0.value.span.clone(),
            )
            .with_hint(format!("pass it before `{named}=`, or name it too")),
        });
    }
    let d = max_depth(&args) + 1;
    expr(
        ExprKind::Call {
            func,
            args: args.into_iter().map(|a| *a.0).collect(),
        },
        d,
        span,
    )
}

pub fn index(base: D<Expr>, items: Vec<D<Box<IndexItem>>>, span: Span) -> PResult<D<Expr>> {
    let d = max_depth(&items).max(base.1) + 1;
    let indices = items.into_iter().map(|i| *i.0).collect();
    expr(
        ExprKind::Index {
            base: Box::new(base.0),
            indices,
        },
        d,
        span,
    )
}

pub fn index_expr(e: D<Expr>, span: Span) -> D<Box<IndexItem>> {
    D(
        Box::new(IndexItem {
            kind: IndexKind::Expr(e.0),
            span,
        }),
        e.1 + 1,
    )
}

pub fn slice(start: Option<D<Expr>>, stop: Option<D<Expr>>, step: Option<D<Expr>>, span: Span) -> D<Box<IndexItem>> {
    let d = [&start, &stop, &step]
        .iter()
        .filter_map(|p| p.as_ref().map(|e| e.1))
        .max()
        .unwrap_or(0)
        + 1;
    let kind = IndexKind::Slice {
        start: start.map(|e| e.0),
        stop: stop.map(|e| e.0),
        step: step.map(|e| e.0),
    };
    D(Box::new(IndexItem { kind, span }), d)
}

/// An `if` with its `else if` arms: the arms sit side by side, so a chain
/// is only as deep as its deepest arm.
pub fn if_(arms: Vec<(D<Expr>, D<Block>)>, otherwise: Option<D<Block>>, span: Span) -> PResult<D<Expr>> {
    let arm_depth = arms.iter().map(|(c, t)| c.1.max(t.1)).max().unwrap_or(0);
    let d = arm_depth.max(otherwise.as_ref().map_or(0, |o| o.1)) + 1;
    let kind = ExprKind::If {
        arms: arms.into_iter().map(|(c, t)| (c.0, t.0)).collect(),
        otherwise: otherwise.map(|o| o.0),
    };
    expr(kind, d, span)
}

pub fn block(stmts: D<Vec<Stmt>>, span: Span) -> PResult<D<Block>> {
    let d = depth(stmts.1 + 1, &span)?;
    Ok(D(Block { stmts: stmts.0, span }, d))
}

pub fn block_expr(b: D<Block>) -> PResult<D<Expr>> {
    let span = b.0.span.clone();
    expr(ExprKind::Block(b.0), b.1 + 1, span)
}

pub fn stmts(stmts: Vec<D<Box<Stmt>>>) -> D<Vec<Stmt>> {
    let d = max_depth(&stmts);
    D(stmts.into_iter().map(|s| *s.0).collect(), d)
}

pub fn stmt(kind: StmtKind, child_depth: u32, span: Span) -> PResult<D<Box<Stmt>>> {
    let d = depth(child_depth + 1, &span)?;
    Ok(D(Box::new(Stmt { kind, span }), d))
}

pub fn let_(target: D<Pattern>, value: D<Expr>, span: Span) -> PResult<D<Box<Stmt>>> {
    stmt(
        StmtKind::Let {
            target: target.0,
            value: value.0,
        },
        target.1.max(value.1),
        span,
    )
}

pub fn tuple_pattern(items: Vec<D<Pattern>>, last: Option<D<Pattern>>, span: Span) -> PResult<D<Pattern>> {
    let items: Vec<D<Pattern>> = items.into_iter().chain(last).collect();
    let mut stars = items.iter().filter_map(|p| match &p.0 {
        Pattern::Rest(id) => Some(id),
        _ => None,
    });
    if let (Some(first), Some(second)) = (stars.next(), stars.next()) {
        return Err(ParseError::User {
            error: Diagnostic::new("E0001", "a tuple pattern takes one starred name", second.span.clone())
                .with_label(first.span.clone(), "the first one")
                .with_hint("the starred name takes the values the other names leave; give it to one name"),
        });
    }
    let d = depth(max_depth(&items) + 1, &span)?;
    Ok(D(Pattern::Tuple(items.into_iter().map(|p| p.0).collect(), span), d))
}

/// Builds an assignment; a target that is not a name or an indexed name is
/// recorded as E0005 and parsing goes on, so that later errors show too.
pub fn assign(
    errors: &mut Vec<Diagnostic>,
    target: D<Expr>,
    op: Option<BinOp>,
    value: D<Expr>,
    span: Span,
) -> PResult<D<Box<Stmt>>> {
    if !assignable(&target.0) {
        errors.push(
            Diagnostic::new("E0005", "cannot assign to this expression", target.0.span.clone())
                .with_primary_label(format!("{} cannot be assigned to", describe(&target.0)))
                .with_hint("only a name (`x = ...`) or an indexed name (`x[i] = ...`) can be assigned"),
        );
    }
    let d = target.1.max(value.1);
    stmt(
        StmtKind::Assign {
            target: target.0,
            op,
            value: value.0,
        },
        d,
        span,
    )
}

/// A name, or an index whose base is (after more indexing) a name: writing
/// into a temporary (`f(x)[0] = 1`) would silently do nothing.
fn assignable(target: &Expr) -> bool {
    let mut e = target;
    while let ExprKind::Index { base, .. } = &e.kind {
        e = base;
    }
    matches!(e.kind, ExprKind::Name(_))
}

fn describe(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Str(_) | ExprKind::FStr(_) => "a literal",
        ExprKind::Call { .. } => "a function call",
        ExprKind::Index { .. } => "an index into a temporary value",
        ExprKind::Tuple(_) => "a tuple (use `let (a, b) = ...` to unpack)",
        ExprKind::ArrayLit(_) => "an array literal",
        ExprKind::Unary(..) | ExprKind::Binary(..) => "an operator expression",
        ExprKind::Cast(..) => "a cast",
        ExprKind::Name(_) | ExprKind::If { .. } | ExprKind::Block(_) => "this expression",
    }
}

pub fn for_(var: D<Pattern>, start: D<Expr>, end: D<Expr>, body: D<Block>, span: Span) -> PResult<D<Box<Stmt>>> {
    let var = match var.0 {
        Pattern::Name(n) => n,
        Pattern::Tuple(_, at) | Pattern::Rest(Ident { span: at, .. }) => {
            return Err(ParseError::User {
                error: Diagnostic::new("E0001", "a counted loop `for i in a..b` binds one name", at)
                    .with_hint("a tuple of names unpacks each item of `for (i, v) in enumerate(x)`"),
            });
        }
    };
    let d = start.1.max(end.1).max(body.1);
    stmt(
        StmtKind::For {
            var,
            start: start.0,
            end: end.0,
            body: body.0,
        },
        d,
        span,
    )
}

pub fn for_each(var: D<Pattern>, iter: D<Expr>, body: D<Block>, span: Span) -> PResult<D<Box<Stmt>>> {
    // Python's `for i in range(n)` and `range(a, b)` are the counted loops `0..n` and `a..b`;
    // with a step, the walk of `arange(a, b, step)`
    if matches!(var.0, Pattern::Name(_))
        && let ExprKind::Call { func, args } = &iter.0.kind
        && func.name == "range"
        && args.iter().all(|a| a.name.is_none())
    {
        let zero = || Expr {
            kind: ExprKind::Int(0),
            span: iter.0.span.clone(),
        };
        match args.as_slice() {
            [n] => return for_(var, D(zero(), iter.1), D(n.value.clone(), iter.1), body, span),
            [a, b] => return for_(var, D(a.value.clone(), iter.1), D(b.value.clone(), iter.1), body, span),
            [_, _, _] => {
                let arange = Expr {
                    kind: ExprKind::Call {
                        func: Ident {
                            name: "arange".into(),
                            ..func.clone()
                        },
                        args: args.clone(),
                    },
                    span: iter.0.span.clone(),
                };
                return for_each(var, D(arange, iter.1), body, span);
            }
            _ => {}
        }
    }
    let d = iter.1.max(body.1).max(var.1);
    stmt(
        StmtKind::ForEach {
            var: var.0,
            iter: iter.0,
            body: body.0,
        },
        d,
        span,
    )
}

/// An f-string token (its text between the quotes) as an expression.
pub fn fstring(raw: &str, span: Span) -> PResult<D<Expr>> {
    let (parts, d) = super::fstring::parts(raw, span.start + 2).map_err(|error| ParseError::User { error })?;
    expr(ExprKind::FStr(parts), d, span)
}

pub fn while_(cond: D<Expr>, body: D<Block>, span: Span) -> PResult<D<Box<Stmt>>> {
    let d = cond.1.max(body.1);
    stmt(
        StmtKind::While {
            cond: cond.0,
            body: body.0,
        },
        d,
        span,
    )
}

pub fn param(name: Ident, ann: Option<TypeAnn>, default: Option<D<Expr>>) -> D<Box<Param>> {
    let d = default.as_ref().map_or(0, |e| e.1);
    D(
        Box::new(Param {
            name,
            ann,
            default: default.map(|e| e.0),
        }),
        d,
    )
}

pub fn fn_(
    name: Ident,
    params: Vec<D<Box<Param>>>,
    ret: Option<TypeAnn>,
    body: D<Expr>,
    span: Span,
) -> PResult<D<Box<Stmt>>> {
    let d = depth(max_depth(&params).max(body.1) + 1, &span)?;
    let def = FnDef {
        name,
        params: params.into_iter().map(|p| *p.0).collect(),
        ret,
        body: body.0,
        span: span.clone(),
    };
    stmt(StmtKind::Fn(Rc::new(def)), d, span)
}
