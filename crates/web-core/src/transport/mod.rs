//! The only module that resolves names and opens sockets: connect, then verify the peer.
//!
//! A connection is made in a fixed order, and nothing is written to a socket before
//! the last check passes:
//!
//! 1. resolve the host through a [`Resolve`] seam (an IP literal is not resolved);
//! 2. classify every candidate address with the guard, so no packet — not even a
//!    SYN — goes to a refused address;
//! 3. connect to a vetted candidate within `connect-timeout`;
//! 4. read the socket's actual peer address and ask the guard again — this check is
//!    the authority; a refused socket is reset at once (SO_LINGER 0) and gets no byte;
//! 5. only then TLS and HTTP.

mod resolve;

pub use resolve::{Resolve, Resolving, StaticResolver, SystemResolver};
