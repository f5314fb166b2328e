//! Text form of arrays, the way `print` and the REPL show them: NumPy's
//! `array2string(a, separator=", ")` layout (nested brackets, common element
//! width, lines wrapped at 75 columns, `...` summaries past 1000 elements),
//! with Arr's own element spelling (`1.0`, `true`, `1.5e-05`).

use crate::graph::data::HostData;

/// Arrays with more elements than this are summarised.
const SUMMARY_THRESHOLD: usize = 1000;
/// How many leading and trailing items a summarised axis keeps.
const EDGE_ITEMS: usize = 3;
/// NumPy's default line width.
const LINE_WIDTH: usize = 75;
const SEPARATOR: &str = ", ";

/// Formats a row-major array of `shape` the way `print` shows it.
pub fn format_array(data: &HostData, shape: &[usize]) -> String {
    let size = shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n));
    if size != Some(data.len()) {
        // Callers always pass matching data; this guards the printer against a bug elsewhere.
        return format!("<{} elements that do not fit shape {:?}>", data.len(), shape);
    }
    if shape.is_empty() {
        let mode = FloatMode::choose(data, &[0]);
        return format_element(data, 0, mode);
    }
    if data.is_empty() {
        return empty_brackets(shape);
    }
    let summarise = data.len() > SUMMARY_THRESHOLD;
    let shown = shown_indices(shape, summarise);
    let mode = FloatMode::choose(data, &shown);
    let width = shown
        .iter()
        .map(|&i| format_element(data, i, mode).len())
        .max()
        .unwrap_or(0);
    let printer = Printer {
        data,
        shape,
        strides: row_major_strides(shape),
        summarise,
        mode,
        width,
    };
    let hanging = " ".to_string();
    printer.recurse(0, 0, &hanging, LINE_WIDTH)
}

/// Whether floats of this array are written in scientific notation. Like
/// NumPy, one choice covers the whole array so that columns line up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FloatMode {
    Positional,
    Scientific,
}

impl FloatMode {
    fn choose(data: &HostData, shown: &[usize]) -> FloatMode {
        let needs_exponent = |x: f64| x.is_finite() && x != 0.0 && (x.abs() < 1e-4 || x.abs() >= 1e16);
        let scientific = match data {
            HostData::F32(v) => shown.iter().any(|&i| needs_exponent(v[i] as f64)),
            HostData::F64(v) => shown.iter().any(|&i| needs_exponent(v[i])),
            HostData::F16(_) | HostData::BF16(_) => shown.iter().any(|&i| needs_exponent(data.get_f64(i))),
            _ => false,
        };
        if scientific {
            FloatMode::Scientific
        } else {
            FloatMode::Positional
        }
    }
}

fn format_element(data: &HostData, i: usize, mode: FloatMode) -> String {
    match data {
        HostData::Bool(v) => v[i].to_string(),
        HostData::U8(v) => v[i].to_string(),
        HostData::I8(v) => v[i].to_string(),
        HostData::I16(v) => v[i].to_string(),
        HostData::U16(v) => v[i].to_string(),
        HostData::I32(v) => v[i].to_string(),
        HostData::U32(v) => v[i].to_string(),
        HostData::I64(v) => v[i].to_string(),
        // Each dtype's own Display/LowerExp gives its shortest round-trip digits.
        HostData::F32(v) => float_element(v[i], v[i] as f64, mode),
        HostData::F64(v) => float_element(v[i], v[i], mode),
        HostData::F16(v) => {
            let short = shortest_half(v[i].to_f64(), |y| {
                crate::graph::data::f16_from_f64(y).to_bits() == v[i].to_bits()
            });
            float_element(short, short, mode)
        }
        HostData::BF16(v) => {
            let short = shortest_half(v[i].to_f64(), |y| {
                crate::graph::data::bf16_from_f64(y).to_bits() == v[i].to_bits()
            });
            float_element(short, short, mode)
        }
    }
}

/// The half float `x` as the f64 of its shortest decimal digits that read
/// back as the same half float (NumPy prints `float16(0.1)` as `0.1`, not
/// the `0.0999755859375` it holds); that f64's own shortest digits are then
/// those digits.
fn shortest_half(x: f64, same: impl Fn(f64) -> bool) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    (1..=17)
        .filter_map(|digits| format!("{x:.*e}", digits - 1).parse::<f64>().ok())
        .find(|&y| same(y))
        .unwrap_or(x)
}

/// One float in its own dtype's shortest digits; `wide` is the same value as f64 for the tests.
fn float_element<T: std::fmt::Display + std::fmt::LowerExp>(x: T, wide: f64, mode: FloatMode) -> String {
    float_text(
        wide.is_nan(),
        wide.is_infinite(),
        wide < 0.0,
        mode,
        || format!("{x}"),
        || format!("{x:e}"),
    )
}

fn float_text(
    nan: bool,
    inf: bool,
    negative: bool,
    mode: FloatMode,
    positional: impl FnOnce() -> String,
    exponential: impl FnOnce() -> String,
) -> String {
    if nan {
        return "nan".to_string();
    }
    if inf {
        return if negative { "-inf" } else { "inf" }.to_string();
    }
    match mode {
        FloatMode::Positional => {
            let mut text = positional();
            if !text.contains('.') {
                text.push_str(".0");
            }
            text
        }
        FloatMode::Scientific => {
            // Rust writes `1.5e-5` / `2e20`; NumPy writes `1.5e-05` / `2.e+20`.
            let text = exponential();
            let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
            let exponent: i32 = exponent.parse().unwrap_or(0);
            let dot = if mantissa.contains('.') { "" } else { ".0" };
            let sign = if exponent < 0 { '-' } else { '+' };
            format!("{mantissa}{dot}e{sign}{:02}", exponent.unsigned_abs())
        }
    }
}

/// `[]` nested to the first zero-length axis: shape (2, 0) is `[[], []]`. An
/// empty array may still have huge axes before its zero (shape (2^40, 0)), so
/// past `SUMMARY_THRESHOLD` leaves each long axis is summarised as for a full
/// array: the text grows with the number of axes, never with their sizes.
fn empty_brackets(shape: &[usize]) -> String {
    let leading = shape.iter().take_while(|&&d| d != 0);
    let leaves = leading.fold(1u128, |acc, &d| acc.saturating_mul(d as u128));
    let summarise = leaves > SUMMARY_THRESHOLD as u128;
    let shown = shape
        .iter()
        .take_while(|&&d| d != 0)
        .map(|&d| {
            if summarise && d > 2 * EDGE_ITEMS {
                2 * EDGE_ITEMS
            } else {
                d
            }
        })
        .fold(1u128, |acc, d| acc.saturating_mul(d as u128));
    if shown > SUMMARY_THRESHOLD as u128 {
        // Dozens of short axes: no summary keeps the text small, so print NumPy's plain `[]`.
        return "[]".to_string();
    }
    nested_empty(shape, summarise)
}

fn nested_empty(shape: &[usize], summarise: bool) -> String {
    match shape.split_first() {
        None => String::new(),
        Some((&0, _)) | Some((_, [])) => "[]".to_string(),
        Some((&n, rest)) => {
            let inner = nested_empty(rest, summarise);
            let items: Vec<&str> = if summarise && n > 2 * EDGE_ITEMS {
                let mut v = vec![inner.as_str(); EDGE_ITEMS];
                v.push("...");
                v.extend(std::iter::repeat_n(inner.as_str(), EDGE_ITEMS));
                v
            } else {
                vec![inner.as_str(); n]
            };
            format!("[{}]", items.join(SEPARATOR))
        }
    }
}

fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1];
    }
    strides
}

/// The indices along one axis that get printed.
fn axis_items(len: usize, summarise: bool) -> Vec<usize> {
    if summarise && len > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).chain(len - EDGE_ITEMS..len).collect()
    } else {
        (0..len).collect()
    }
}

/// Flat indices of every element that appears in the output (the element
/// width and float mode are decided over these only, as NumPy does).
fn shown_indices(shape: &[usize], summarise: bool) -> Vec<usize> {
    let strides = row_major_strides(shape);
    let mut flat = vec![0usize];
    for (axis, &len) in shape.iter().enumerate() {
        let stride = strides[axis];
        let items = axis_items(len, summarise);
        flat = flat
            .iter()
            .flat_map(|&base| items.iter().map(move |&i| base + i * stride))
            .collect();
    }
    flat
}

struct Printer<'a> {
    data: &'a HostData,
    shape: &'a [usize],
    strides: Vec<usize>,
    summarise: bool,
    mode: FloatMode,
    width: usize,
}

impl Printer<'_> {
    fn element(&self, flat: usize) -> String {
        format!(
            "{:>width$}",
            format_element(self.data, flat, self.mode),
            width = self.width
        )
    }

    /// NumPy's `_formatArray` recursion (non-legacy branch). `hanging` is the
    /// indent continuation lines get; `width` the room left on a line.
    fn recurse(&self, axis: usize, base: usize, hanging: &str, width: usize) -> String {
        let len = self.shape[axis];
        let stride = self.strides[axis];
        let axes_left = self.shape.len() - axis;
        let show_summary = self.summarise && len > 2 * EDGE_ITEMS;
        let (leading, trailing) = if show_summary {
            (EDGE_ITEMS, EDGE_ITEMS)
        } else {
            (0, len)
        };
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let mut s = String::new();

        if axes_left == 1 {
            // Room for the element plus the separator's comma or the closing bracket.
            let elem_width = width.saturating_sub(1);
            let mut line = hanging.to_string();
            for i in 0..leading {
                extend_line(&mut s, &mut line, &self.element(base + i * stride), elem_width, hanging);
                line.push_str(SEPARATOR);
            }
            if show_summary {
                extend_line(&mut s, &mut line, "...", elem_width, hanging);
                line.push_str(SEPARATOR);
            }
            for i in (2..=trailing).rev() {
                extend_line(
                    &mut s,
                    &mut line,
                    &self.element(base + (len - i) * stride),
                    elem_width,
                    hanging,
                );
                line.push_str(SEPARATOR);
            }
            extend_line(
                &mut s,
                &mut line,
                &self.element(base + (len - 1) * stride),
                elem_width,
                hanging,
            );
            s.push_str(&line);
        } else {
            // Blocks of rank >= 2 are separated by a blank line per extra axis.
            let line_sep = format!("{}{}", SEPARATOR.trim_end(), "\n".repeat(axes_left - 1));
            for i in 0..leading {
                s.push_str(hanging);
                s.push_str(&self.recurse(axis + 1, base + i * stride, &next_hanging, next_width));
                s.push_str(&line_sep);
            }
            if show_summary {
                s.push_str(hanging);
                s.push_str("...");
                s.push_str(&line_sep);
            }
            for i in (2..=trailing).rev() {
                s.push_str(hanging);
                s.push_str(&self.recurse(axis + 1, base + (len - i) * stride, &next_hanging, next_width));
                s.push_str(&line_sep);
            }
            s.push_str(hanging);
            s.push_str(&self.recurse(axis + 1, base + (len - 1) * stride, &next_hanging, next_width));
        }
        format!("[{}]", &s[hanging.len()..])
    }
}

/// Appends `word` to `line`, first moving `line` into `s` when the word
/// would run past `width` (unless the line holds nothing yet).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, hanging: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > hanging.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        line.clear();
        line.push_str(hanging);
    }
    line.push_str(word);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i64s(n: usize) -> HostData {
        HostData::I64((0..n as i64).collect())
    }

    #[test]
    fn rank0_is_just_the_value() {
        assert_eq!(format_array(&HostData::F32(vec![1.0]), &[]), "1.0");
        assert_eq!(format_array(&HostData::F64(vec![-2.5]), &[]), "-2.5");
        assert_eq!(format_array(&HostData::I64(vec![-5]), &[]), "-5");
        assert_eq!(format_array(&HostData::I32(vec![7]), &[]), "7");
        assert_eq!(format_array(&HostData::Bool(vec![true]), &[]), "true");
        assert_eq!(format_array(&HostData::F64(vec![f64::NAN]), &[]), "nan");
        assert_eq!(format_array(&HostData::F32(vec![f32::NEG_INFINITY]), &[]), "-inf");
        assert_eq!(format_array(&HostData::F64(vec![f64::INFINITY]), &[]), "inf");
    }

    #[test]
    fn float_digits_are_shortest_for_the_dtype() {
        assert_eq!(format_array(&HostData::F32(vec![0.1]), &[]), "0.1");
        assert_eq!(format_array(&HostData::F32(vec![1.0 / 3.0]), &[]), "0.33333334");
        assert_eq!(format_array(&HostData::F64(vec![1.0 / 3.0]), &[]), "0.3333333333333333");
        assert_eq!(
            format_array(&HostData::F64(vec![0.1 + 0.2]), &[]),
            "0.30000000000000004"
        );
        assert_eq!(format_array(&HostData::F64(vec![100.0]), &[]), "100.0");
        assert_eq!(format_array(&HostData::F64(vec![-0.0]), &[]), "-0.0");
        assert_eq!(format_array(&HostData::F64(vec![0.0]), &[]), "0.0");
        assert_eq!(format_array(&HostData::F64(vec![1e15]), &[]), "1000000000000000.0");
        assert_eq!(format_array(&HostData::F64(vec![0.0001]), &[]), "0.0001");
    }

    #[test]
    fn scientific_for_tiny_and_huge() {
        assert_eq!(format_array(&HostData::F64(vec![1.5e-5]), &[]), "1.5e-05");
        assert_eq!(format_array(&HostData::F64(vec![2e20]), &[]), "2.0e+20");
        assert_eq!(format_array(&HostData::F64(vec![1e16]), &[]), "1.0e+16");
        assert_eq!(format_array(&HostData::F64(vec![-3.25e-100]), &[]), "-3.25e-100");
        assert_eq!(format_array(&HostData::F32(vec![1e-5]), &[]), "1.0e-05");
        assert_eq!(format_array(&HostData::F32(vec![1.1e-7]), &[]), "1.1e-07");
        // One element that needs an exponent puts the whole array in that notation.
        assert_eq!(
            format_array(&HostData::F64(vec![1.0, 1e-5]), &[2]),
            "[1.0e+00, 1.0e-05]"
        );
        assert_eq!(
            format_array(&HostData::F64(vec![0.0, 1e-5]), &[2]),
            "[0.0e+00, 1.0e-05]"
        );
    }

    #[test]
    fn rank1_and_alignment() {
        assert_eq!(format_array(&HostData::I64(vec![1, 2, 3]), &[3]), "[1, 2, 3]");
        assert_eq!(
            format_array(&HostData::I64(vec![-1, 10, -100]), &[3]),
            "[  -1,   10, -100]"
        );
        assert_eq!(
            format_array(&HostData::F64(vec![1.0, -2.5, 10.0]), &[3]),
            "[ 1.0, -2.5, 10.0]"
        );
        assert_eq!(format_array(&HostData::Bool(vec![true, false]), &[2]), "[ true, false]");
        assert_eq!(
            format_array(
                &HostData::F64(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0]),
                &[4]
            ),
            "[ nan,  inf, -inf,  1.0]"
        );
        assert_eq!(format_array(&HostData::I32(vec![5]), &[1]), "[5]");
    }

    #[test]
    fn rank2_rows_on_new_lines() {
        assert_eq!(
            format_array(&HostData::F32(vec![1.0, 2.0, 3.0, 4.0]), &[2, 2]),
            "[[1.0, 2.0],\n [3.0, 4.0]]"
        );
        assert_eq!(
            format_array(&HostData::I64(vec![1, -20, 300, 4]), &[2, 2]),
            "[[  1, -20],\n [300,   4]]"
        );
        assert_eq!(
            format_array(&HostData::I64(vec![1, 2, 3]), &[3, 1]),
            "[[1],\n [2],\n [3]]"
        );
    }

    #[test]
    fn rank3_blocks_separated_by_blank_line() {
        assert_eq!(
            format_array(&i64s(8), &[2, 2, 2]),
            "[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]"
        );
    }

    #[test]
    fn rank4_uses_two_blank_lines_between_outer_blocks() {
        let expected = "[[[[0],\n   [1]]],\n\n\n [[[2],\n   [3]]]]";
        assert_eq!(format_array(&i64s(4), &[2, 1, 2, 1]), expected);
    }

    #[test]
    fn empty_arrays() {
        assert_eq!(format_array(&HostData::F32(vec![]), &[0]), "[]");
        assert_eq!(format_array(&HostData::F32(vec![]), &[2, 0]), "[[], []]");
        assert_eq!(format_array(&HostData::I64(vec![]), &[0, 3]), "[]");
        assert_eq!(format_array(&HostData::I64(vec![]), &[2, 2, 0]), "[[[], []], [[], []]]");
    }

    #[test]
    fn huge_empty_arrays_print_in_constant_space() {
        // shape (2^40, 0): a trillion empty rows, summarised like a long axis of a full array.
        assert_eq!(
            format_array(&HostData::F64(vec![]), &[1 << 40, 0]),
            "[[], [], [], ..., [], [], []]"
        );
        assert_eq!(
            format_array(&HostData::F64(vec![]), &[1 << 20, 2, 0, 1 << 30]),
            "[[[], []], [[], []], [[], []], ..., [[], []], [[], []], [[], []]]"
        );
        // At most SUMMARY_THRESHOLD leaves: every one is written.
        assert_eq!(format_array(&HostData::I64(vec![]), &[7, 0]).matches("[]").count(), 7);
        assert_eq!(
            format_array(
                &HostData::I64(vec![]),
                &[2; 60].iter().copied().chain([0]).collect::<Vec<_>>()
            ),
            "[]"
        );
    }

    #[test]
    fn long_vector_wraps_at_75_columns() {
        // np.array2string(np.arange(30), separator=", ")
        let expected = "[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n \
                        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]";
        assert_eq!(format_array(&i64s(30), &[30]), expected);
    }

    #[test]
    fn summarised_vector() {
        assert_eq!(
            format_array(&i64s(2000), &[2000]),
            "[   0,    1,    2, ..., 1997, 1998, 1999]"
        );
    }

    #[test]
    fn summarised_matrix() {
        let expected = "[[   0,    1,    2, ...,   97,   98,   99],\n \
                        [ 100,  101,  102, ...,  197,  198,  199],\n \
                        [ 200,  201,  202, ...,  297,  298,  299],\n \
                        ...,\n \
                        [9700, 9701, 9702, ..., 9797, 9798, 9799],\n \
                        [9800, 9801, 9802, ..., 9897, 9898, 9899],\n \
                        [9900, 9901, 9902, ..., 9997, 9998, 9999]]";
        assert_eq!(format_array(&i64s(10_000), &[100, 100]), expected);
    }

    #[test]
    fn exactly_1000_elements_are_not_summarised() {
        let text = format_array(&i64s(1000), &[1000]);
        assert!(!text.contains("..."));
        assert!(text.contains(" 500,"));
    }

    #[test]
    fn short_axes_of_a_big_array_are_not_summarised() {
        // 2 x 600: the first axis is too short to cut, the second is cut.
        let text = format_array(&i64s(1200), &[2, 600]);
        assert_eq!(
            text,
            "[[   0,    1,    2, ...,  597,  598,  599],\n [ 600,  601,  602, ..., 1197, 1198, 1199]]"
        );
    }

    #[test]
    fn mismatched_shape_does_not_panic() {
        assert!(format_array(&HostData::I64(vec![1, 2]), &[3]).contains("do not fit"));
    }
}
