//! The only module that resolves names and opens sockets: connect, then verify the peer.
