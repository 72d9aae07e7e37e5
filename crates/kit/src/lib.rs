//! An MCP server framework: toolkit packs, the Request object, both protocol eras
//! over stdio and Streamable HTTP. It knows nothing of the web.
