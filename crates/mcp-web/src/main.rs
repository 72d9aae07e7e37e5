//! The `mcp-web` binary: a few lines calling [`mcp_web::app::main`]. Its PDF readings
//! run in child processes of this same program, started with
//! [`CHILD_ARG`](mcp_web_core::fetch::pdf::CHILD_ARG): a flaw of the PDF crate (an
//! abort, a runaway allocation, a loop) ends that child, never the server.

use mcp_web_core::fetch::pdf;

fn main() -> std::process::ExitCode {
    let mut args = std::env::args_os();
    let _program = args.next();
    let mut rest = args.peekable();
    if rest.peek().is_some_and(|a| a == pdf::CHILD_ARG) {
        rest.next();
        mcp_web::app::log_contained_panics();
        return pdf::child_main(rest);
    }
    if let Ok(program) = std::env::current_exe() {
        pdf::read_in_child_processes(program);
    }
    mcp_web::app::main(std::env::args_os())
}
