//! The Web pack: the toolkit named `Web` and its tools, one module per tool (schema,
//! arguments, output rendering).
