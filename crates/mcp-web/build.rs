//! Build script of the `mcp-web` binary: two link options that make the server's start
//! touch less memory, each used only when a probe shows the toolchain of this build
//! links with it a program that runs.
//!
//! - Packed relative relocations (`-z pack-relative-relocs`, DT_RELR): the loader reads a
//!   few KiB of relocations at start instead of over a MiB. It needs the linker's support
//!   and, to run, glibc 2.36 or later.
//! - The startup order (`startup.order`, release builds): the functions a server runs from
//!   its start to its first `tools/list` answer are laid out side by side, so the code it
//!   maps at idle is about 1 MiB rather than 7 of an 11 MiB `.text`. It
//!   needs a linker that reads `--symbol-ordering-file` (LLD, which Rust uses on x86_64
//!   Linux); names the file lists that a build lacks are passed over. `bench/startup-order.sh`
//!   writes the file anew.
//!
//! A cross build, another platform, or a probe that fails for any reason links the binary
//! without the option. `MCP_WEB_LINK_PROBE=0` turns both off.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The option that packs relative relocations.
const RELR: &str = "-Wl,-z,pack-relative-relocs";

/// The program every probe links: `std` alone holds relative relocations enough to show
/// whether packed ones are applied at start.
const PROBE: &str =
    "fn main() { let v: Vec<String> = std::env::args().collect(); assert!(!v.is_empty()); }\n";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=startup.order");
    println!("cargo:rerun-if-env-changed=MCP_WEB_LINK_PROBE");
    if env::var("MCP_WEB_LINK_PROBE").is_ok_and(|v| v == "0") {
        return;
    }
    let (Ok(target), Ok(host), Some(out)) = (
        env::var("TARGET"),
        env::var("HOST"),
        env::var_os("OUT_DIR").map(PathBuf::from),
    ) else {
        return;
    };
    // A probe must run to prove anything, so only a build for this machine is probed.
    if target != host || !target.contains("-linux-") {
        return;
    }
    if links_and_runs(&out, "relr", &[RELR]) {
        println!("cargo:rustc-link-arg-bins={RELR}");
    }
    let order =
        Path::new(&env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()).join("startup.order");
    if env::var("PROFILE").is_ok_and(|p| p == "release") && order.is_file() {
        let args = [
            format!("-Wl,--symbol-ordering-file={}", order.display()),
            "-Wl,--no-warn-symbol-ordering".to_owned(),
        ];
        if links_and_runs(&out, "order", &args) {
            for arg in args {
                println!("cargo:rustc-link-arg-bins={arg}");
            }
        }
    }
}

/// Whether the probe program, linked by this build's compiler with these link options
/// (and the build's own flags), links and then runs successfully.
fn links_and_runs<S: AsRef<str>>(out: &Path, name: &str, link_args: &[S]) -> bool {
    let source = out.join(format!("probe-{name}.rs"));
    let program = out.join(format!("probe-{name}"));
    if std::fs::write(&source, PROBE).is_err() {
        return false;
    }
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut command = Command::new(rustc);
    command
        .arg("--edition=2021")
        .arg("-o")
        .arg(&program)
        .arg(&source);
    if let Ok(target) = env::var("TARGET") {
        command.args(["--target", &target]);
    }
    if let Ok(linker) = env::var("RUSTC_LINKER") {
        command.arg(format!("-Clinker={linker}"));
    }
    if let Ok(flags) = env::var("CARGO_ENCODED_RUSTFLAGS") {
        command.args(flags.split('\u{1f}').filter(|f| !f.is_empty()));
    }
    for arg in link_args {
        command.arg(format!("-Clink-arg={}", arg.as_ref()));
    }
    let linked = command.output().is_ok_and(|o| o.status.success());
    linked
        && Command::new(&program)
            .output()
            .is_ok_and(|o| o.status.success())
}
