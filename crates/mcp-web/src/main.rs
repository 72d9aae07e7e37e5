//! The `mcp-web` binary: a few lines calling [`mcp_web::app::main`].

fn main() -> std::process::ExitCode {
    mcp_web::app::main(std::env::args_os())
}
