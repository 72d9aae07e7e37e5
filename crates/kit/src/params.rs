//! Tool parameters defined once. A tool lists its [`Param`]s in one [`Params`], and
//! both its published input schema ([`Params::schema`]) and the parser of its call
//! arguments ([`Params::parse`]) derive from that list, so the two cannot drift.
//!
//! ```
//! use mcp_kit::params::{Param, Params};
//! use serde_json::json;
//!
//! static PARAMS: Params = Params::new(&[
//!     Param::required_string("query", "What to search for."),
//!     Param::integer("count", 10, 1..=20, "How many results."),
//! ]);
//!
//! let args = json!({"query": "rust"});
//! let args = PARAMS.parse("search", args.as_object().unwrap()).unwrap();
//! assert_eq!(args.string("query").unwrap(), "rust");
//! let count: u32 = args.integer("count").unwrap();
//! assert_eq!(count, 10);
//!
//! let wrong = json!({"query": "rust", "count": 50});
//! let error = PARAMS.parse("search", wrong.as_object().unwrap()).unwrap_err();
//! assert_eq!(error.parameter(), "count");
//! ```
//!
//! A definition is checked when it is built: names are unique and every default lies
//! in its range. Built in a `static` or `const`, a broken definition does not compile:
//!
//! ```compile_fail
//! use mcp_kit::params::{Param, Params};
//! // Two parameters named "url".
//! static PARAMS: Params = Params::new(&[
//!     Param::required_string("url", "The page."),
//!     Param::boolean("url", false, "Again."),
//! ]);
//! ```
//!
//! ```compile_fail
//! use mcp_kit::params::Param;
//! // A default outside its range.
//! static COUNT: Param = Param::integer("count", 30, 1..=20, "How many results.");
//! ```
//!
//! A tool reading a parameter its definition lacks (or reading it as another type) gets
//! an [`ArgumentError`] with [`ArgumentRule::Undefined`], never a panic, so a unit test
//! that reads one valid call's arguments catches the mistake.

use std::fmt;
use std::ops::RangeInclusive;

use serde_json::{Map, Value, json};

use crate::toolkit::{Annotations, ToolSpec};

/// The longest rendering of a refused value an error message quotes.
const QUOTED_VALUE_CHARS: usize = 60;

/// One parameter of a tool: its name, the values it takes, whether it is required or
/// its default, and what it is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    name: &'static str,
    description: &'static str,
    kind: Kind,
}

/// The values a parameter takes, with its default (or none: required).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A string the call must give.
    RequiredString,
    /// `true` or `false`, with a default.
    Boolean { default: bool },
    /// An integer in `min..=max`, with a default.
    Integer { default: i64, min: i64, max: i64 },
    /// A string the call may leave out.
    OptionalString,
    /// One of a fixed list of strings, which the call may leave out.
    OptionalChoice { choices: &'static [&'static str] },
}

impl Param {
    /// A string parameter every call must give.
    pub const fn required_string(name: &'static str, description: &'static str) -> Self {
        Self {
            name,
            description,
            kind: Kind::RequiredString,
        }
    }

    /// A boolean parameter, `default` when the call leaves it out.
    pub const fn boolean(name: &'static str, default: bool, description: &'static str) -> Self {
        Self {
            name,
            description,
            kind: Kind::Boolean { default },
        }
    }

    /// An integer parameter taking values in `range` (inclusive), `default` when the
    /// call leaves it out. The default must lie in the range.
    pub const fn integer(
        name: &'static str,
        default: i64,
        range: RangeInclusive<i64>,
        description: &'static str,
    ) -> Self {
        let (min, max) = (*range.start(), *range.end());
        assert!(min <= max, "an integer parameter's range is empty");
        assert!(
            min <= default && default <= max,
            "an integer parameter's default lies outside its range"
        );
        Self {
            name,
            description,
            kind: Kind::Integer { default, min, max },
        }
    }

    /// A string parameter a call may leave out.
    pub const fn optional_string(name: &'static str, description: &'static str) -> Self {
        Self {
            name,
            description,
            kind: Kind::OptionalString,
        }
    }

    /// A parameter taking one of `choices` (its schema's `enum`), which a call may
    /// leave out. The list must not be empty.
    pub const fn optional_choice(
        name: &'static str,
        choices: &'static [&'static str],
        description: &'static str,
    ) -> Self {
        assert!(!choices.is_empty(), "a choice parameter has no choices");
        Self {
            name,
            description,
            kind: Kind::OptionalChoice { choices },
        }
    }

    /// The parameter's name, as calls spell it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What the parameter is for, as the schema describes it.
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// Whether every call must give the parameter.
    pub fn is_required(&self) -> bool {
        matches!(self.kind, Kind::RequiredString)
    }

    /// The parameter's JSON Schema: `type`, `description`, then `default`, `minimum`
    /// and `maximum` when it has them.
    fn schema(&self) -> Value {
        let mut schema = Map::new();
        let mut put = |key: &str, value: Value| {
            schema.insert(key.to_owned(), value);
        };
        match self.kind {
            Kind::RequiredString | Kind::OptionalString => {
                put("type", json!("string"));
                put("description", json!(self.description));
            }
            Kind::OptionalChoice { choices } => {
                put("type", json!("string"));
                put("description", json!(self.description));
                put("enum", json!(choices));
            }
            Kind::Boolean { default } => {
                put("type", json!("boolean"));
                put("description", json!(self.description));
                put("default", json!(default));
            }
            Kind::Integer { default, min, max } => {
                put("type", json!("integer"));
                put("description", json!(self.description));
                put("default", json!(default));
                put("minimum", json!(min));
                put("maximum", json!(max));
            }
        }
        Value::Object(schema)
    }

    /// What the parameter takes, in words: `a string`, `true or false (default
    /// false)`, `an integer from 1 to 20 (default 10)`.
    fn takes(&self) -> String {
        match self.kind {
            Kind::RequiredString | Kind::OptionalString => "a string".to_owned(),
            Kind::OptionalChoice { choices } => {
                let quoted: Vec<String> = choices.iter().map(|c| format!("\"{c}\"")).collect();
                match quoted.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => "nothing".to_owned(),
                }
            }
            Kind::Boolean { default } => format!("true or false (default {default})"),
            Kind::Integer { default, min, max } => {
                format!("an integer from {min} to {max} (default {default})")
            }
        }
    }

    /// The value of `given` for this parameter, or the error naming the rule it breaks.
    fn read<'a>(&self, tool: &str, given: Option<&'a Value>) -> Result<Parsed<'a>, ArgumentError> {
        let Some(value) = given else {
            return match self.kind {
                Kind::RequiredString => Err(self.refuse(
                    tool,
                    ArgumentRule::Missing,
                    format!(
                        "{tool}: the parameter \"{}\" is required and takes {}",
                        self.name,
                        self.takes()
                    ),
                )),
                Kind::Boolean { default } => Ok(Parsed::Boolean(default)),
                Kind::Integer { default, .. } => Ok(Parsed::Integer(default)),
                Kind::OptionalString | Kind::OptionalChoice { .. } => Ok(Parsed::Absent),
            };
        };
        match (self.kind, value) {
            (Kind::RequiredString | Kind::OptionalString, Value::String(text)) => {
                Ok(Parsed::String(text))
            }
            (Kind::OptionalChoice { choices }, Value::String(text)) => {
                if choices.contains(&text.as_str()) {
                    Ok(Parsed::String(text))
                } else {
                    Err(self.refuse_value(tool, ArgumentRule::OutOfRange, value))
                }
            }
            (Kind::Boolean { .. }, Value::Bool(flag)) => Ok(Parsed::Boolean(*flag)),
            (Kind::Integer { min, max, .. }, Value::Number(number)) => {
                match integer_value(number) {
                    Some(Some(n)) if (min..=max).contains(&n) => Ok(Parsed::Integer(n)),
                    // An integer, but outside the range (or beyond any i64).
                    Some(_) => Err(self.refuse_value(tool, ArgumentRule::OutOfRange, value)),
                    None => Err(self.refuse_value(tool, ArgumentRule::WrongType, value)),
                }
            }
            _ => Err(self.refuse_value(tool, ArgumentRule::WrongType, value)),
        }
    }

    /// The error for a `value` this parameter refuses by `rule`.
    fn refuse_value(&self, tool: &str, rule: ArgumentRule, value: &Value) -> ArgumentError {
        let message = format!(
            "{tool}: the parameter \"{}\" must be {}, not {}",
            self.name,
            self.takes(),
            quote(value)
        );
        self.refuse(tool, rule, message)
    }

    /// An error about this parameter.
    fn refuse(&self, tool: &str, rule: ArgumentRule, message: String) -> ArgumentError {
        ArgumentError {
            tool: tool.to_owned(),
            parameter: self.name.to_owned(),
            rule,
            message,
        }
    }
}

/// A JSON number as an integer: `Some(Some(n))` for an integer `n` an `i64` holds
/// (`2.0` counts, as in JSON Schema), `Some(None)` for an integer beyond `i64`, and
/// `None` for a number with a fractional part.
fn integer_value(number: &serde_json::Number) -> Option<Option<i64>> {
    if let Some(n) = number.as_i64() {
        return Some(Some(n));
    }
    if number.is_u64() {
        return Some(None);
    }
    let float = number.as_f64()?;
    if float.fract() != 0.0 || !float.is_finite() {
        return None;
    }
    // i64::MIN is exactly representable; anything at or past 2^63 is not an i64.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&float) {
        // The float is integral and inside the i64 range, so the cast is exact.
        return Some(Some(float as i64));
    }
    Some(None)
}

/// `value` as JSON, cut to [`QUOTED_VALUE_CHARS`] characters.
fn quote(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(QUOTED_VALUE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The parameters of one tool, in the order its schema lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    params: &'static [Param],
}

impl Params {
    /// The definition made of `params`. Names must be unique.
    pub const fn new(params: &'static [Param]) -> Self {
        let mut i = 0;
        while i < params.len() {
            assert!(!params[i].name.is_empty(), "a parameter's name is empty");
            let mut j = i + 1;
            while j < params.len() {
                assert!(
                    !same_name(params[i].name, params[j].name),
                    "two parameters share a name"
                );
                j += 1;
            }
            i += 1;
        }
        Self { params }
    }

    /// The parameters, in definition order.
    pub fn params(&self) -> &'static [Param] {
        self.params
    }

    /// The published input schema: an object schema whose `properties` hold each
    /// parameter's schema, whose `required` lists exactly the required ones, and which
    /// refuses other properties (`additionalProperties: false`).
    pub fn schema(&self) -> Value {
        let properties: Map<String, Value> = self
            .params
            .iter()
            .map(|param| (param.name.to_owned(), param.schema()))
            .collect();
        let required: Vec<&str> = self
            .params
            .iter()
            .filter(|param| param.is_required())
            .map(|param| param.name)
            .collect();
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }

    /// Checks the arguments of one call of `tool` (the name its messages use): an
    /// argument the definition lacks, a missing required one, a value of the wrong
    /// type or out of its range is refused. The first fault found is reported, unknown
    /// arguments (in the call's order) before the parameters (in definition order).
    pub fn parse<'a>(
        &'a self,
        tool: &'a str,
        args: &'a Map<String, Value>,
    ) -> Result<Args<'a>, ArgumentError> {
        if let Some(unknown) = args.keys().find(|key| self.find(key).is_none()) {
            return Err(ArgumentError {
                tool: tool.to_owned(),
                parameter: unknown.clone(),
                rule: ArgumentRule::Unknown,
                message: format!(
                    "{tool}: \"{unknown}\" is not a parameter of {tool}; {}",
                    self.listing()
                ),
            });
        }
        let values = self
            .params
            .iter()
            .map(|param| param.read(tool, args.get(param.name)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Args {
            tool,
            params: self.params,
            values,
        })
    }

    /// The parameter named `name`.
    fn find(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|param| param.name == name)
    }

    /// The parameters the tool takes, in words: `it takes exactly one parameter,
    /// "url"`, `it takes the parameters "url", "depth"`.
    fn listing(&self) -> String {
        let names: Vec<String> = self
            .params
            .iter()
            .map(|param| format!("\"{}\"", param.name))
            .collect();
        match names.as_slice() {
            [] => "it takes no parameters".to_owned(),
            [one] => format!("it takes exactly one parameter, {one}"),
            many => format!("it takes the parameters {}", many.join(", ")),
        }
    }
}

/// Whether two names are the same string (`==` on `str` is not `const`).
const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl ToolSpec {
    /// The tool named `name`, described by `description`, whose input schema derives
    /// from `params`.
    pub fn new(name: &str, description: &str, params: &Params, annotations: Annotations) -> Self {
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            input_schema: params.schema(),
            annotations,
        }
    }
}

/// One checked value of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parsed<'a> {
    String(&'a str),
    Absent,
    Boolean(bool),
    Integer(i64),
}

/// The checked arguments of one call: every parameter of the definition has a value,
/// the call's or its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args<'a> {
    tool: &'a str,
    params: &'static [Param],
    values: Vec<Parsed<'a>>,
}

impl<'a> Args<'a> {
    /// The string parameter `name`.
    pub fn string(&self, name: &str) -> Result<&'a str, ArgumentError> {
        match self.value(name, "a string")? {
            Parsed::String(text) => Ok(text),
            _ => Err(self.undefined(name, "a string")),
        }
    }

    /// The optional string (or choice) parameter `name`, when the call gave it.
    pub fn optional_string(&self, name: &str) -> Result<Option<&'a str>, ArgumentError> {
        match self.value(name, "an optional string")? {
            Parsed::String(text) => Ok(Some(text)),
            Parsed::Absent => Ok(None),
            _ => Err(self.undefined(name, "an optional string")),
        }
    }

    /// The boolean parameter `name`, given or its default.
    pub fn bool(&self, name: &str) -> Result<bool, ArgumentError> {
        match self.value(name, "a boolean")? {
            Parsed::Boolean(flag) => Ok(flag),
            _ => Err(self.undefined(name, "a boolean")),
        }
    }

    /// The integer parameter `name`, given or its default, as the integer type `T`
    /// (which must hold the parameter's whole range).
    pub fn integer<T: TryFrom<i64>>(&self, name: &str) -> Result<T, ArgumentError> {
        let what = std::any::type_name::<T>();
        match self.value(name, what)? {
            Parsed::Integer(n) => T::try_from(n).map_err(|_| self.undefined(name, what)),
            _ => Err(self.undefined(name, what)),
        }
    }

    /// The value of the parameter `name`, read as `what`.
    fn value(&self, name: &str, what: &str) -> Result<Parsed<'a>, ArgumentError> {
        self.params
            .iter()
            .position(|param| param.name == name)
            .and_then(|index| self.values.get(index).copied())
            .ok_or_else(|| self.undefined(name, what))
    }

    /// The error for reading `name` as `what` when the definition has no such
    /// parameter: a defect of the tool, not of the call.
    fn undefined(&self, name: &str, what: &str) -> ArgumentError {
        let tool = self.tool;
        ArgumentError {
            tool: tool.to_owned(),
            parameter: name.to_owned(),
            rule: ArgumentRule::Undefined,
            message: format!(
                "{tool} reads the parameter \"{name}\" as {what}, but its definition has \
                 no such parameter: a defect in {tool}, not in the call"
            ),
        }
    }
}

/// The rule an argument broke.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgumentRule {
    /// The call gave an argument the tool does not define.
    Unknown,
    /// The call left out a required argument.
    Missing,
    /// The argument's JSON type is not the parameter's.
    WrongType,
    /// The integer lies outside the parameter's range.
    OutOfRange,
    /// The tool read a parameter its definition lacks, or as another type.
    Undefined,
    /// The value has the parameter's type, but the tool's own check refused it by the
    /// rule named (a pattern that does not compile: `regex-syntax`).
    Invalid(&'static str),
}

impl ArgumentRule {
    /// The rule's stable id, as a tool error's structured content carries it.
    pub fn as_str(self) -> &'static str {
        match self {
            ArgumentRule::Unknown => "unknown_parameter",
            ArgumentRule::Missing => "missing_parameter",
            ArgumentRule::WrongType => "wrong_type",
            ArgumentRule::OutOfRange => "out_of_range",
            ArgumentRule::Undefined => "undefined_parameter",
            ArgumentRule::Invalid(rule) => rule,
        }
    }
}

/// A call's arguments refused: which parameter, which rule, and (as `Display`) the
/// message naming the tool, the parameter and what it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    tool: String,
    parameter: String,
    rule: ArgumentRule,
    message: String,
}

impl ArgumentError {
    /// The value the call gave `parameter` of `tool` refused by the tool's own check,
    /// by `rule` (its stable id), `why` saying what is wrong: the message reads
    /// `tool: the parameter "parameter" was refused: why`.
    pub fn invalid(
        tool: &str,
        parameter: &str,
        rule: &'static str,
        why: impl fmt::Display,
    ) -> Self {
        ArgumentError {
            tool: tool.to_owned(),
            parameter: parameter.to_owned(),
            rule: ArgumentRule::Invalid(rule),
            message: format!("{tool}: the parameter \"{parameter}\" was refused: {why}"),
        }
    }

    /// The tool whose call was refused.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The parameter concerned (for an unknown argument, the name the call used).
    pub fn parameter(&self) -> &str {
        &self.parameter
    }

    /// The rule the argument broke.
    pub fn rule(&self) -> ArgumentRule {
        self.rule
    }
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ArgumentError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grep-like tool: two required strings, two booleans, three ranged integers.
    static GREP: Params = Params::new(&[
        Param::required_string("url", "The page to search."),
        Param::required_string("pattern", "What to look for."),
        Param::boolean("regex", false, "Read the pattern as a regex."),
        Param::boolean("ignore-case", false, "Match regardless of case."),
        Param::integer("depth", 0, 0..=3, "How many links deep to follow."),
        Param::integer("max-pages", 20, 1..=100, "The most pages to read."),
        Param::integer("max-results", 50, 1..=1000, "The most lines to return."),
    ]);

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    /// A grep call's arguments, typed: url, pattern, regex, ignore-case, depth,
    /// max-pages, max-results.
    type Grep = (String, String, bool, bool, u32, u32, u32);

    fn parse(value: Value) -> Result<Grep, ArgumentError> {
        let map = object(value);
        let args = GREP.parse("grep", &map)?;
        Ok((
            args.string("url")?.to_owned(),
            args.string("pattern")?.to_owned(),
            args.bool("regex")?,
            args.bool("ignore-case")?,
            args.integer("depth")?,
            args.integer("max-pages")?,
            args.integer("max-results")?,
        ))
    }

    fn refusal(value: Value) -> (String, ArgumentRule, String) {
        let error = parse(value).expect_err("the arguments are refused");
        assert_eq!(error.tool(), "grep");
        (
            error.parameter().to_owned(),
            error.rule(),
            error.to_string(),
        )
    }

    #[test]
    fn defaults_fill_what_the_call_leaves_out() {
        let parsed = parse(json!({"url": "u", "pattern": "p"})).unwrap();
        assert_eq!(parsed, ("u".into(), "p".into(), false, false, 0, 20, 50));
    }

    #[test]
    fn given_values_are_typed() {
        let parsed = parse(json!({
            "max-results": 7, "url": "u", "pattern": "p", "regex": true,
            "ignore-case": true, "depth": 2, "max-pages": 3
        }))
        .unwrap();
        assert_eq!(parsed, ("u".into(), "p".into(), true, true, 2, 3, 7));
    }

    #[test]
    fn ranges_hold_at_both_ends() {
        let low = parse(json!({"url": "u", "pattern": "p", "depth": 0, "max-pages": 1}));
        assert_eq!(low.unwrap().4, 0);
        let high = parse(json!({"url": "u", "pattern": "p", "depth": 3, "max-pages": 100}));
        let high = high.unwrap();
        assert_eq!((high.4, high.5), (3, 100));

        let (parameter, rule, message) =
            refusal(json!({"url": "u", "pattern": "p", "max-pages": 0}));
        assert_eq!(
            (parameter.as_str(), rule),
            ("max-pages", ArgumentRule::OutOfRange)
        );
        assert_eq!(
            message,
            "grep: the parameter \"max-pages\" must be an integer from 1 to 100 (default 20), not 0"
        );
        let (parameter, rule, _) = refusal(json!({"url": "u", "pattern": "p", "depth": 4}));
        assert_eq!(
            (parameter.as_str(), rule),
            ("depth", ArgumentRule::OutOfRange)
        );
        let (_, rule, _) = refusal(json!({"url": "u", "pattern": "p", "depth": -1}));
        assert_eq!(rule, ArgumentRule::OutOfRange);
        let (_, rule, _) = refusal(json!({"url": "u", "pattern": "p", "depth": u64::MAX}));
        assert_eq!(rule, ArgumentRule::OutOfRange);
        let (_, rule, _) = refusal(json!({"url": "u", "pattern": "p", "depth": 1e300}));
        assert_eq!(rule, ArgumentRule::OutOfRange);
    }

    #[test]
    fn an_integral_float_is_an_integer_and_a_fraction_is_not() {
        let parsed = parse(json!({"url": "u", "pattern": "p", "depth": 2.0})).unwrap();
        assert_eq!(parsed.4, 2);
        let (parameter, rule, message) = refusal(json!({"url": "u", "pattern": "p", "depth": 1.5}));
        assert_eq!(
            (parameter.as_str(), rule),
            ("depth", ArgumentRule::WrongType)
        );
        assert!(message.ends_with("not 1.5"), "{message}");
    }

    #[test]
    fn wrong_types_are_refused_naming_what_the_parameter_takes() {
        let (parameter, rule, message) =
            refusal(json!({"url": "u", "pattern": "p", "regex": "yes"}));
        assert_eq!(
            (parameter.as_str(), rule),
            ("regex", ArgumentRule::WrongType)
        );
        assert_eq!(
            message,
            "grep: the parameter \"regex\" must be true or false (default false), not \"yes\""
        );
        let (parameter, rule, message) = refusal(json!({"url": 42, "pattern": "p"}));
        assert_eq!((parameter.as_str(), rule), ("url", ArgumentRule::WrongType));
        assert_eq!(
            message,
            "grep: the parameter \"url\" must be a string, not 42"
        );
        let (parameter, rule, _) = refusal(json!({"url": "u", "pattern": "p", "depth": "2"}));
        assert_eq!(
            (parameter.as_str(), rule),
            ("depth", ArgumentRule::WrongType)
        );
        let (parameter, rule, _) = refusal(json!({"url": "u", "pattern": "p", "depth": null}));
        assert_eq!(
            (parameter.as_str(), rule),
            ("depth", ArgumentRule::WrongType)
        );
        let (_, rule, _) = refusal(json!({"url": "u", "pattern": "p", "ignore-case": 1}));
        assert_eq!(rule, ArgumentRule::WrongType);
    }

    #[test]
    fn a_long_refused_value_is_quoted_cut() {
        let long = "é".repeat(500);
        let (_, _, message) = refusal(json!({"url": "u", "pattern": "p", "regex": long}));
        assert!(message.ends_with('…'), "{message}");
        assert!(message.chars().count() < 160, "{message}");
    }

    #[test]
    fn a_missing_required_argument_is_refused() {
        let (parameter, rule, message) = refusal(json!({"url": "u"}));
        assert_eq!(
            (parameter.as_str(), rule),
            ("pattern", ArgumentRule::Missing)
        );
        assert_eq!(
            message,
            "grep: the parameter \"pattern\" is required and takes a string"
        );
    }

    #[test]
    fn unknown_arguments_are_refused_listing_the_valid_ones() {
        let (parameter, rule, message) =
            refusal(json!({"url": "u", "pattern": "p", "max_pages": 5}));
        assert_eq!(
            (parameter.as_str(), rule),
            ("max_pages", ArgumentRule::Unknown)
        );
        assert_eq!(
            message,
            "grep: \"max_pages\" is not a parameter of grep; it takes the parameters \"url\", \
             \"pattern\", \"regex\", \"ignore-case\", \"depth\", \"max-pages\", \"max-results\""
        );
        // Unknown arguments are reported before missing ones.
        let (parameter, rule, _) = refusal(json!({"URL": "u"}));
        assert_eq!((parameter.as_str(), rule), ("URL", ArgumentRule::Unknown));
    }

    #[test]
    fn a_value_the_tool_refuses_names_the_parameter_and_the_tools_rule() {
        let error = ArgumentError::invalid("grep", "pattern", "regex-syntax", "unclosed group");
        assert_eq!(error.tool(), "grep");
        assert_eq!(error.parameter(), "pattern");
        assert_eq!(error.rule(), ArgumentRule::Invalid("regex-syntax"));
        assert_eq!(error.rule().as_str(), "regex-syntax");
        assert_eq!(
            error.to_string(),
            "grep: the parameter \"pattern\" was refused: unclosed group"
        );
    }

    #[test]
    fn a_one_parameter_tool_says_so() {
        static ONE: Params = Params::new(&[Param::required_string("url", "The page.")]);
        let map = object(json!({"url": "u", "depth": 1}));
        let error = ONE.parse("fetch", &map).unwrap_err();
        assert_eq!(
            error.to_string(),
            "fetch: \"depth\" is not a parameter of fetch; it takes exactly one parameter, \"url\""
        );
        static NONE: Params = Params::new(&[]);
        let error = NONE.parse("ping", &map).unwrap_err();
        assert!(
            error.to_string().ends_with("it takes no parameters"),
            "{error}"
        );
        assert!(NONE.parse("ping", &Map::new()).is_ok());
    }

    #[test]
    fn reading_an_undefined_parameter_is_a_defect_not_a_panic() {
        let map = object(json!({"url": "u", "pattern": "p"}));
        let args = GREP.parse("grep", &map).unwrap();
        let error = args.bool("case").unwrap_err();
        assert_eq!(
            (error.parameter(), error.rule()),
            ("case", ArgumentRule::Undefined)
        );
        assert!(error.to_string().contains("a defect in grep"), "{error}");
        // Defined, but read as another type.
        assert_eq!(
            args.string("depth").unwrap_err().rule(),
            ArgumentRule::Undefined
        );
        assert_eq!(
            args.bool("url").unwrap_err().rule(),
            ArgumentRule::Undefined
        );
        assert_eq!(
            args.integer::<i64>("regex").unwrap_err().rule(),
            ArgumentRule::Undefined
        );
        // An integer type too small for the value.
        let map = object(json!({"url": "u", "pattern": "p", "max-results": 300}));
        let args = GREP.parse("grep", &map).unwrap();
        assert_eq!(
            args.integer::<u8>("max-results").unwrap_err().rule(),
            ArgumentRule::Undefined
        );
        assert_eq!(args.integer::<u16>("max-results").unwrap(), 300);
    }

    #[test]
    fn the_schema_lists_exactly_the_required_and_every_default() {
        let schema = GREP.schema();
        assert_eq!(schema["required"], json!(["url", "pattern"]));
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(schema["type"], json!("object"));
        let properties = schema["properties"].as_object().unwrap();
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "url",
                "pattern",
                "regex",
                "ignore-case",
                "depth",
                "max-pages",
                "max-results"
            ]
        );
        let defaults: Vec<(&str, Option<&Value>)> = properties
            .iter()
            .map(|(name, property)| (name.as_str(), property.get("default")))
            .collect();
        assert_eq!(
            defaults,
            [
                ("url", None),
                ("pattern", None),
                ("regex", Some(&json!(false))),
                ("ignore-case", Some(&json!(false))),
                ("depth", Some(&json!(0))),
                ("max-pages", Some(&json!(20))),
                ("max-results", Some(&json!(50))),
            ]
        );
        assert_eq!(
            properties["max-pages"].to_string(),
            r#"{"type":"integer","description":"The most pages to read.","default":20,"minimum":1,"maximum":100}"#
        );
        assert_eq!(
            properties["url"].to_string(),
            r#"{"type":"string","description":"The page to search."}"#
        );
        assert_eq!(
            properties["regex"].to_string(),
            r#"{"type":"boolean","description":"Read the pattern as a regex.","default":false}"#
        );
    }

    #[test]
    fn every_call_the_schema_accepts_the_parser_accepts() {
        // The schema and the parser agree on the boundaries of each range.
        let properties = GREP.schema()["properties"].clone();
        for param in GREP.params() {
            let Some(min) = properties[param.name()]["minimum"].as_i64() else {
                continue;
            };
            let max = properties[param.name()]["maximum"].as_i64().unwrap();
            for (n, accepted) in [(min - 1, false), (min, true), (max, true), (max + 1, false)] {
                let mut call = object(json!({"url": "u", "pattern": "p"}));
                call.insert(param.name().to_owned(), json!(n));
                assert_eq!(
                    GREP.parse("grep", &call).is_ok(),
                    accepted,
                    "{} = {n}",
                    param.name()
                );
            }
        }
    }

    /// A search-like tool: a required query, an optional string, an optional choice.
    static SEARCH: Params = Params::new(&[
        Param::required_string("query", "What to search for."),
        Param::optional_string("site", "One host."),
        Param::optional_choice("freshness", &["day", "week"], "How recent."),
    ]);

    #[test]
    fn optional_strings_and_choices_are_absent_given_or_refused() {
        let args = object(json!({"query": "q"}));
        let parsed = SEARCH.parse("search", &args).unwrap();
        assert_eq!(parsed.optional_string("site").unwrap(), None);
        assert_eq!(parsed.optional_string("freshness").unwrap(), None);
        let args = object(json!({"query": "q", "site": "docs.rs", "freshness": "week"}));
        let parsed = SEARCH.parse("search", &args).unwrap();
        assert_eq!(parsed.optional_string("site").unwrap(), Some("docs.rs"));
        assert_eq!(parsed.optional_string("freshness").unwrap(), Some("week"));
        let args = object(json!({"query": "q", "freshness": "fortnight"}));
        let error = SEARCH.parse("search", &args).unwrap_err();
        assert_eq!(
            (error.parameter(), error.rule()),
            ("freshness", ArgumentRule::OutOfRange)
        );
        assert_eq!(
            error.to_string(),
            r#"search: the parameter "freshness" must be "day" or "week", not "fortnight""#
        );
        let args = object(json!({"query": "q", "site": 3}));
        let error = SEARCH.parse("search", &args).unwrap_err();
        assert_eq!(
            (error.parameter(), error.rule()),
            ("site", ArgumentRule::WrongType)
        );
        let properties = SEARCH.schema()["properties"].clone();
        assert_eq!(
            properties["freshness"].to_string(),
            r#"{"type":"string","description":"How recent.","enum":["day","week"]}"#
        );
        assert_eq!(SEARCH.schema()["required"], json!(["query"]));
    }

    #[test]
    fn tool_spec_new_publishes_the_derived_schema() {
        let annotations = Annotations {
            read_only: Some(true),
            ..Annotations::default()
        };
        let spec = ToolSpec::new("grep", "Greps.", &GREP, annotations);
        assert_eq!(spec.name, "grep");
        assert_eq!(spec.description, "Greps.");
        assert_eq!(spec.input_schema, GREP.schema());
        assert_eq!(spec.annotations, annotations);
    }
}
