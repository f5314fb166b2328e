//! Generates the parser from grammar/arr.lalrpop into OUT_DIR.

fn main() {
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(out_dir)
        .emit_rerun_directives(true)
        .process()
        .expect("grammar/arr.lalrpop should generate a parser");
}
