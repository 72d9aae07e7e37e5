//! One guarded GET: redirects hop by hop, deadlines, byte caps, decoding and charset.
