//! The progress bar of the commands that visit many pages (`crawl`, `grep`): the pages
//! done of the `--max-pages` budget and the current page, drawn on stderr with
//! indicatif when stderr is a terminal, fed by the operation's [`Observer`] reports.

use std::io::{self, IsTerminal};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::ops::Observer;

/// The progress bar on a terminal: pages of `--max-pages`, the page's URL.
pub struct Bar(ProgressBar);

impl Bar {
    /// A bar of `max_pages` steps drawn on stderr.
    pub fn new(max_pages: u64) -> Bar {
        let bar = ProgressBar::with_draw_target(Some(max_pages), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} pages  {wide_msg}") {
            bar.set_style(style);
        }
        Bar(bar)
    }

    /// A bar of `max_pages` steps when stderr is a terminal, else none.
    pub fn on_terminal(max_pages: u64) -> Option<Bar> {
        io::stderr().is_terminal().then(|| Bar::new(max_pages))
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Observer for Bar {
    fn progress(&self, done: f64, _total: Option<f64>, message: &str) {
        // `done` counts whole pages.
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a count of pages, never negative nor fractional"
        )]
        self.0.set_position(done as u64);
        self.0.set_message(message.to_owned());
    }
}
