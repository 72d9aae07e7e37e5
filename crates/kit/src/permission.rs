//! Permissions a tool checks before it acts ([`crate::Request::require_permission`]):
//! the server's rules ([`Permissions`]: allow, deny, ask), the one-time grant a user
//! gives through a form, and the signed `requestState` that carries an ask to the
//! retried call.
//!
//! A [`Permission`] the rules neither allow nor deny is asked for: the call's round
//! ends with a form (one required field, `decision`: `allow once` or `deny`) and a
//! state the server signs with HMAC-SHA256 under a key drawn at random when the
//! server is built, so it dies with the process. The state binds the tool, the
//! canonical arguments, the grants given so far and a nonce; the retried call is
//! admitted once per nonce, and only with the same tool and arguments. A grant is
//! never stored by the server: it lives in that one state and belongs to that one
//! invocation, and the rules are checked again before any grant counts.

use std::fmt;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ring::rand::SystemRandom;
use ring::{digest, hmac};
use serde_json::{Map, Value, json};

/// The form field a user answers a permission ask with.
pub const DECISION_FIELD: &str = "decision";
/// The answer that grants a permission for this one call.
pub const ALLOW_ONCE: &str = "allow once";
/// The answer that refuses it.
pub const DENY: &str = "deny";
/// The key the ask is made under in `inputRequests` (and answered under in
/// `inputResponses`).
pub const ASK_KEY: &str = "permission";

/// What opens every state this module signs, so a tool's own state is told apart.
const STATE_PREFIX: &str = "mcp-kit-permission.1.";
/// How long an ask may wait for its answer.
const STATE_LIFETIME: Duration = Duration::from_secs(600);
/// How many of the latest states issued can still be admitted, whoever asked them: a
/// state is numbered when issued, and one more than this many states behind the
/// latest is refused as expired. The window is a bitmap of this many bits (128 KiB),
/// so no number of asks grows the store or stops asks being made; a client asking
/// this many times within a state's lifetime only retires the oldest states early.
const STATE_WINDOW: u64 = 1 << 20;

/// A permission a tool needs before it acts: a kind (`"net.loopback"`), the target it
/// is for (`"wiki.corp:443 at 127.0.0.1"`), and the message a user reads when asked.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Permission {
    kind: String,
    target: String,
    message: String,
}

impl Permission {
    /// A permission of `kind` for `target`, asked with `message` (what the tool wants
    /// to do, why it was refused, and how to permit it for good).
    pub fn new(
        kind: impl Into<String>,
        target: impl Into<String>,
        message: impl Into<String>,
    ) -> Permission {
        Permission {
            kind: kind.into(),
            target: target.into(),
            message: message.into(),
        }
    }

    /// The permission's kind, which rules match.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// What it is for, which a rule may also match.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The message a user reads when asked.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The form the user answers: one required field, `decision`, whose choices are
    /// `allow once` and `deny`.
    pub fn form_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                DECISION_FIELD: {
                    "type": "string",
                    "title": "Decision",
                    "enum": [ALLOW_ONCE, DENY],
                },
            },
            "required": [DECISION_FIELD],
        })
    }
}

/// What a rule decides for the permissions it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Granted without asking.
    Allow,
    /// Refused without asking.
    Deny,
    /// Asked of the user (what a permission no rule matches gets too).
    Ask,
}

/// One rule of the server's permissions: a kind, optionally one target, a decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    kind: String,
    target: Option<String>,
    decision: Decision,
}

impl Rule {
    /// A rule deciding `decision` for every permission of `kind`.
    pub fn new(kind: impl Into<String>, decision: Decision) -> Rule {
        Rule {
            kind: kind.into(),
            target: None,
            decision,
        }
    }

    /// This rule for the one target `target` only.
    #[must_use]
    pub fn for_target(mut self, target: impl Into<String>) -> Rule {
        self.target = Some(target.into());
        self
    }

    /// What the rule decides.
    pub fn decision(&self) -> Decision {
        self.decision
    }

    fn matches(&self, permission: &Permission) -> bool {
        self.kind == permission.kind
            && self
                .target
                .as_ref()
                .is_none_or(|target| *target == permission.target)
    }
}

/// The server's permissions object: ordered rules, the first that matches decides; a
/// permission no rule matches is asked. Clones share the rules, so an operator's
/// change reaches calls already waiting for an answer: the rules are read again on
/// every run of a handler.
#[derive(Debug, Clone, Default)]
pub struct Permissions {
    rules: Arc<RwLock<Vec<Rule>>>,
}

impl Permissions {
    /// Permissions with no rules: every permission is asked.
    pub fn new() -> Permissions {
        Permissions::default()
    }

    /// These permissions with `rule` added after the others.
    #[must_use]
    pub fn with_rule(self, rule: Rule) -> Permissions {
        match self.rules.write() {
            Ok(mut rules) => rules.push(rule),
            Err(poisoned) => poisoned.into_inner().push(rule),
        }
        self
    }

    /// Replaces the rules.
    pub fn set_rules(&self, rules: Vec<Rule>) {
        match self.rules.write() {
            Ok(mut current) => *current = rules,
            Err(poisoned) => *poisoned.into_inner() = rules,
        }
    }

    /// The rules, in order.
    pub fn rules(&self) -> Vec<Rule> {
        match self.rules.read() {
            Ok(rules) => rules.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// What the rules decide for `permission`: the first matching rule's decision, or
    /// [`Decision::Ask`] when none matches.
    pub fn decide(&self, permission: &Permission) -> Decision {
        self.rules()
            .iter()
            .find(|rule| rule.matches(permission))
            .map_or(Decision::Ask, Rule::decision)
    }
}

/// How a permission was granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Grant {
    /// A rule of the server allows it.
    ByRule,
    /// The user allowed it once, for this invocation only.
    Once,
}

/// Why a permission was not granted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// A rule of the server denies permissions of this kind.
    Denied {
        /// The permission's kind.
        kind: String,
    },
    /// The user answered `deny`, declined or cancelled the form.
    Declined,
    /// The client cannot be asked (it declared no form elicitation, or the call runs
    /// in process).
    CannotAsk,
    /// The framework is asking the client now: this round of the call is answered,
    /// and the handler runs again with the answer. Return without answering (an
    /// answer now is ignored).
    Asking,
}

impl Refusal {
    /// True when the framework is asking: the handler should just return.
    pub fn is_asking(&self) -> bool {
        matches!(self, Refusal::Asking)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Denied { kind } => write!(
                f,
                "a permission rule of the server denies {kind}; only the server's \
                 permission rules change this"
            ),
            Refusal::Declined => f.write_str("the user did not allow it"),
            Refusal::CannotAsk => f.write_str("the client cannot be asked for permission"),
            Refusal::Asking => f.write_str("the user is being asked for permission"),
        }
    }
}

impl std::error::Error for Refusal {}

/// A permission as the state carries it: kind and target.
type Key = (String, String);

fn key_of(permission: &Permission) -> Key {
    (permission.kind.clone(), permission.target.clone())
}

/// The signing key and the nonces already used, shared by every connection of a
/// server (and its copies).
pub(crate) struct Gate {
    key: Option<hmac::Key>,
    issued: Mutex<Issued>,
    clock: Clock,
}

/// The states issued, by number, and which of the last ones (a window of
/// [`STATE_WINDOW`] in a server) were used.
#[derive(Debug)]
struct Issued {
    /// How many of the latest states can be admitted, a multiple of 64.
    window: u64,
    /// The number of the first state the window holds (a multiple of 64).
    base: u64,
    /// One bit per state from `base` on, set once it was used.
    used: std::collections::VecDeque<u64>,
    /// The number the next state gets.
    next: u64,
}

impl Issued {
    /// None issued yet; `window` states admissible at most.
    fn with_window(window: u64) -> Self {
        Self {
            window: window.max(64),
            base: 0,
            used: std::collections::VecDeque::new(),
            next: 0,
        }
    }

    /// Numbers a new state, retiring the oldest when the window is full.
    fn issue(&mut self) -> u64 {
        let number = self.next;
        self.next += 1;
        let word = usize::try_from((number - self.base) / 64).unwrap_or(usize::MAX);
        if word >= self.used.len() {
            self.used.push_back(0);
        }
        while self.used.len() as u64 * 64 > self.window {
            self.used.pop_front();
            self.base += 64;
        }
        number
    }

    /// Marks state `number` used; refuses one never issued, retired or used before.
    fn admit(&mut self, number: u64) -> Result<(), &'static str> {
        if number >= self.next {
            return Err("a state never issued");
        }
        let Some(offset) = number.checked_sub(self.base) else {
            return Err("a state older than the last ones issued");
        };
        let word = usize::try_from(offset / 64).map_err(|_| "a state out of range")?;
        let bit = 1u64 << (offset % 64);
        let slot = self.used.get_mut(word).ok_or("a state out of range")?;
        if *slot & bit != 0 {
            return Err("a state used before");
        }
        *slot |= bit;
        Ok(())
    }
}

/// Where a gate reads the time, in seconds since the epoch: the system clock, or a
/// test's.
type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gate").finish_non_exhaustive()
    }
}

/// What a call's request knows of permissions: the rules, the grants its state
/// carries, the permission the user just refused, and whether its client can be asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Permit {
    gate: Option<Arc<Gate>>,
    rules: Permissions,
    tool: String,
    digest: String,
    grants: Vec<Key>,
    declined: Option<Key>,
    can_ask: bool,
}

/// The signed content of a state.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Sealed {
    /// The tool.
    t: String,
    /// The SHA-256 of its canonical arguments, hex.
    a: String,
    /// The state's number, given by the gate when it was issued.
    n: u64,
    /// Seconds since the epoch after which the state is refused.
    e: u64,
    /// The grants given in earlier rounds of this invocation.
    g: Vec<Key>,
    /// The permission asked in this round.
    p: Key,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
        })
        .collect()
}

/// `value` as JSON with every object's keys sorted, so equal arguments give equal
/// text whatever order a client wrote them in.
pub(crate) fn canonical(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    if let Some(item) = map.get(key) {
                        write(item, out);
                    }
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// The SHA-256 of `tool` and its canonical `args`, hex.
fn digest_of(tool: &str, args: &Map<String, Value>) -> String {
    let text = format!("{tool}\n{}", canonical(&Value::Object(args.clone())));
    hex(digest::digest(&digest::SHA256, text.as_bytes()).as_ref())
}

/// The message of every refused state: the one error a client sees, whatever the
/// reason, which goes to the server's log.
pub(crate) const BAD_STATE: &str = "Invalid or expired requestState: a permission answer is \
     accepted once, for the call that asked it, from the server process that asked it; call \
     the tool again without it to be asked anew (no configuration key changes this)";

impl Gate {
    /// A gate with a fresh random key. Without a working random source no state can
    /// be signed: permissions that need asking are then refused as unaskable.
    pub(crate) fn new() -> Gate {
        Gate::with_clock(Arc::new(now_secs))
    }

    /// A gate with a fresh random key reading the time from `clock`.
    fn with_clock(clock: Clock) -> Gate {
        let rng = SystemRandom::new();
        let key = hmac::Key::generate(hmac::HMAC_SHA256, &rng).ok();
        if key.is_none() {
            tracing::error!("no random source for permission state; asks are refused");
        }
        Gate {
            key,
            issued: Mutex::new(Issued::with_window(STATE_WINDOW)),
            clock,
        }
    }

    /// The permit of a call of `tool` with `args` carrying `state` and `responses`:
    /// the grants a state of ours carries (and the one this answer gives), or why the
    /// state is refused. A state that is not ours belongs to the tool and grants
    /// nothing.
    pub(crate) fn open(
        self: &Arc<Self>,
        rules: &Permissions,
        tool: &str,
        args: &Map<String, Value>,
        state: Option<&str>,
        responses: &Map<String, Value>,
        can_ask: bool,
    ) -> Result<Permit, String> {
        let mut permit = Permit {
            gate: Some(Arc::clone(self)),
            rules: rules.clone(),
            tool: tool.to_owned(),
            digest: digest_of(tool, args),
            grants: Vec::new(),
            declined: None,
            can_ask,
        };
        let Some(sealed) = state.and_then(|state| state.strip_prefix(STATE_PREFIX)) else {
            return Ok(permit);
        };
        let sealed = self.verify(sealed, &permit)?;
        let answer = responses.get(ASK_KEY);
        let accepted = answer.is_some_and(|answer| {
            answer.get("action").and_then(Value::as_str) == Some("accept")
                && answer
                    .get("content")
                    .and_then(|content| content.get(DECISION_FIELD))
                    .and_then(Value::as_str)
                    == Some(ALLOW_ONCE)
        });
        permit.grants = sealed.g;
        if accepted {
            permit.grants.push(sealed.p);
        } else {
            permit.declined = Some(sealed.p);
        }
        Ok(permit)
    }

    /// The content of `sealed` when it is a state this gate signed, for this call,
    /// unexpired and not used before (it is used now).
    fn verify(&self, sealed: &str, permit: &Permit) -> Result<Sealed, String> {
        let key = self.key.as_ref().ok_or("no signing key")?;
        let (payload, tag) = sealed.split_once('.').ok_or("not a signed state")?;
        let tag = unhex(tag).ok_or("a signature that is not hex")?;
        hmac::verify(key, payload.as_bytes(), &tag)
            .map_err(|_| "a signature this server did not make")?;
        let payload = unhex(payload).ok_or("a payload that is not hex")?;
        let content: Sealed =
            serde_json::from_slice(&payload).map_err(|_| "a payload that does not parse")?;
        if content.t != permit.tool || content.a != permit.digest {
            return Err("a state asked for another tool or other arguments".into());
        }
        let now = (self.clock)();
        if content.e < now {
            return Err("an expired state".into());
        }
        self.issued().admit(content.n)?;
        Ok(content)
    }

    /// The states issued, whatever panicked while holding them.
    fn issued(&self) -> std::sync::MutexGuard<'_, Issued> {
        self.issued
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A signed state asking `pending` after `grants`, or `None` when none can be made.
    fn seal(&self, permit: &Permit, pending: Key) -> Option<String> {
        let key = self.key.as_ref()?;
        let content = Sealed {
            t: permit.tool.clone(),
            a: permit.digest.clone(),
            n: self.issued().issue(),
            e: (self.clock)() + STATE_LIFETIME.as_secs(),
            g: permit.grants.clone(),
            p: pending,
        };
        let payload = hex(&serde_json::to_vec(&content).ok()?);
        let tag = hmac::sign(key, payload.as_bytes());
        Some(format!("{STATE_PREFIX}{payload}.{}", hex(tag.as_ref())))
    }
}

/// Whether `state` is a permission state this module made (or something posing as
/// one): its ask is a permission's.
pub(crate) fn is_permission_state(state: Option<&str>) -> bool {
    state.is_some_and(|state| state.starts_with(STATE_PREFIX))
}

/// What [`Permit::check`] concluded.
pub(crate) enum Checked {
    /// Granted.
    Granted(Grant),
    /// Refused.
    Refused(Refusal),
    /// To be asked: the form's state.
    Ask(String),
}

impl Permit {
    /// Checks `permission`: the current rules, then this invocation's grants, then
    /// whether it may be asked.
    pub(crate) fn check(&self, permission: &Permission) -> Checked {
        match self.rules.decide(permission) {
            Decision::Allow => return Checked::Granted(Grant::ByRule),
            Decision::Deny => {
                return Checked::Refused(Refusal::Denied {
                    kind: permission.kind.clone(),
                });
            }
            Decision::Ask => {}
        }
        let key = key_of(permission);
        if self.grants.contains(&key) {
            return Checked::Granted(Grant::Once);
        }
        if self.declined.as_ref() == Some(&key) {
            return Checked::Refused(Refusal::Declined);
        }
        if !self.can_ask {
            return Checked::Refused(Refusal::CannotAsk);
        }
        match self.gate.as_ref().and_then(|gate| gate.seal(self, key)) {
            Some(state) => Checked::Ask(state),
            None => Checked::Refused(Refusal::CannotAsk),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    fn loopback() -> Permission {
        Permission::new("net.loopback", "wiki:80", "Reach wiki?")
    }

    fn accept(decision: &str) -> Map<String, Value> {
        args(json!({ASK_KEY: {"action": "accept", "content": {DECISION_FIELD: decision}}}))
    }

    /// The state the first run of a call asks with.
    fn asked(gate: &Arc<Gate>, rules: &Permissions, call: &Map<String, Value>) -> String {
        let permit = gate
            .open(rules, "fetch", call, None, &Map::new(), true)
            .expect("a first call");
        match permit.check(&loopback()) {
            Checked::Ask(state) => state,
            _ => panic!("a permission no rule matches is asked"),
        }
    }

    #[test]
    fn a_flood_of_asks_retires_only_the_oldest_states_and_the_store_stays_a_window() {
        let mut issued = Issued::with_window(128);
        let first = issued.issue();
        let flood: Vec<u64> = (0..100_000).map(|_| issued.issue()).collect();
        for &number in &flood[..flood.len() - 1] {
            let _ = issued.admit(number);
        }
        // Asking never stops, and the store holds the window, not the flood.
        let latest = issued.issue();
        assert!(issued.used.len() <= 3, "{} words", issued.used.len());
        assert_eq!(
            issued.admit(first),
            Err("a state older than the last ones issued")
        );
        assert_eq!(issued.admit(latest), Ok(()));
        assert_eq!(issued.admit(latest), Err("a state used before"));
        let unused = flood[flood.len() - 1];
        assert_eq!(issued.admit(unused), Ok(()));
        assert_eq!(issued.admit(latest + 1), Err("a state never issued"));
    }

    #[test]
    fn the_first_matching_rule_decides_and_no_rule_asks() {
        let rules = Permissions::new()
            .with_rule(Rule::new("net.loopback", Decision::Deny).for_target("intranet:80"))
            .with_rule(Rule::new("net.loopback", Decision::Allow));
        assert_eq!(rules.decide(&loopback()), Decision::Allow);
        let intranet = Permission::new("net.loopback", "intranet:80", "");
        assert_eq!(rules.decide(&intranet), Decision::Deny);
        assert_eq!(
            rules.decide(&Permission::new("net.private", "x", "")),
            Decision::Ask
        );
    }

    #[test]
    fn an_allowed_answer_grants_once_and_its_state_is_single_use() {
        let gate = Arc::new(Gate::new());
        let rules = Permissions::new();
        let call = args(json!({"url": "http://wiki/", "n": [1, {"b": 2, "a": 1}]}));
        let state = asked(&gate, &rules, &call);
        // The same arguments written in another order are the same call.
        let reordered = args(json!({"n": [1, {"a": 1, "b": 2}], "url": "http://wiki/"}));
        let permit = gate
            .open(
                &rules,
                "fetch",
                &reordered,
                Some(&state),
                &accept(ALLOW_ONCE),
                true,
            )
            .expect("the state verifies");
        assert!(matches!(
            permit.check(&loopback()),
            Checked::Granted(Grant::Once)
        ));
        // Another permission is not covered by that grant.
        let other = Permission::new("net.loopback", "other:80", "");
        assert!(matches!(permit.check(&other), Checked::Ask(_)));
        // Replayed: refused.
        let replay = gate.open(
            &rules,
            "fetch",
            &call,
            Some(&state),
            &accept(ALLOW_ONCE),
            true,
        );
        assert_eq!(replay.unwrap_err(), "a state used before");
    }

    #[test]
    fn a_denied_or_missing_answer_refuses_without_asking_again() {
        let gate = Arc::new(Gate::new());
        let rules = Permissions::new();
        let call = args(json!({"url": "http://wiki/"}));
        for responses in [
            accept(DENY),
            args(json!({ASK_KEY: {"action": "decline"}})),
            Map::new(),
        ] {
            let state = asked(&gate, &rules, &call);
            let permit = gate
                .open(&rules, "fetch", &call, Some(&state), &responses, true)
                .expect("the state verifies");
            assert!(matches!(
                permit.check(&loopback()),
                Checked::Refused(Refusal::Declined)
            ));
        }
    }

    #[test]
    fn a_state_for_another_call_or_tampered_or_foreign_is_refused() {
        let gate = Arc::new(Gate::new());
        let rules = Permissions::new();
        let call = args(json!({"url": "http://wiki/"}));
        let open = |state: &str, tool: &str, call: &Map<String, Value>| {
            gate.open(&rules, tool, call, Some(state), &accept(ALLOW_ONCE), true)
                .map(|_| ())
        };
        let state = asked(&gate, &rules, &call);
        let other_args = args(json!({"url": "http://other/"}));
        assert_eq!(
            open(&state, "fetch", &other_args).unwrap_err(),
            "a state asked for another tool or other arguments"
        );
        let state = asked(&gate, &rules, &call);
        assert_eq!(
            open(&state, "crawl", &call).unwrap_err(),
            "a state asked for another tool or other arguments"
        );
        // One character of the payload changed.
        let state = asked(&gate, &rules, &call);
        let at = STATE_PREFIX.len() + 4;
        let mut tampered = state.clone().into_bytes();
        tampered[at] = if tampered[at] == b'0' { b'1' } else { b'0' };
        let tampered = String::from_utf8(tampered).expect("ascii");
        assert_eq!(
            open(&tampered, "fetch", &call).unwrap_err(),
            "a signature this server did not make"
        );
        // Signed by another server (another process's key).
        let foreign = asked(&Arc::new(Gate::new()), &rules, &call);
        assert_eq!(
            open(&foreign, "fetch", &call).unwrap_err(),
            "a signature this server did not make"
        );
        assert_eq!(
            open(&format!("{STATE_PREFIX}zz"), "fetch", &call).unwrap_err(),
            "not a signed state"
        );
        // A state that is not ours belongs to the tool and grants nothing.
        let permit = gate
            .open(
                &rules,
                "fetch",
                &call,
                Some("tool-state"),
                &accept(ALLOW_ONCE),
                true,
            )
            .expect("not a permission state");
        assert!(matches!(permit.check(&loopback()), Checked::Ask(_)));
    }

    #[test]
    fn the_rules_are_checked_again_before_a_grant_counts() {
        let gate = Arc::new(Gate::new());
        let rules = Permissions::new();
        let call = args(json!({"url": "http://wiki/"}));
        let state = asked(&gate, &rules, &call);
        rules.set_rules(vec![Rule::new("net.loopback", Decision::Deny)]);
        let permit = gate
            .open(
                &rules,
                "fetch",
                &call,
                Some(&state),
                &accept(ALLOW_ONCE),
                true,
            )
            .expect("the state verifies");
        assert!(matches!(
            permit.check(&loopback()),
            Checked::Refused(Refusal::Denied { .. })
        ));
    }

    #[test]
    fn a_client_that_cannot_be_asked_is_refused() {
        let gate = Arc::new(Gate::new());
        let permit = gate
            .open(
                &Permissions::new(),
                "fetch",
                &Map::new(),
                None,
                &Map::new(),
                false,
            )
            .expect("a first call");
        assert!(matches!(
            permit.check(&loopback()),
            Checked::Refused(Refusal::CannotAsk)
        ));
    }

    #[test]
    fn grants_of_earlier_rounds_survive_a_second_ask() {
        let gate = Arc::new(Gate::new());
        let rules = Permissions::new();
        let call = args(json!({"url": "http://wiki/"}));
        let first = asked(&gate, &rules, &call);
        let permit = gate
            .open(
                &rules,
                "fetch",
                &call,
                Some(&first),
                &accept(ALLOW_ONCE),
                true,
            )
            .expect("verifies");
        let second = Permission::new("net.private", "db:5432", "");
        let Checked::Ask(state) = permit.check(&second) else {
            panic!("the second permission is asked");
        };
        let permit = gate
            .open(
                &rules,
                "fetch",
                &call,
                Some(&state),
                &accept(ALLOW_ONCE),
                true,
            )
            .expect("verifies");
        assert!(matches!(
            permit.check(&loopback()),
            Checked::Granted(Grant::Once)
        ));
        assert!(matches!(
            permit.check(&second),
            Checked::Granted(Grant::Once)
        ));
    }

    #[test]
    fn a_state_is_accepted_for_ten_minutes_and_refused_after() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let now = Arc::new(AtomicU64::new(1_000_000));
        let clock = Arc::clone(&now);
        let gate = Arc::new(Gate::with_clock(Arc::new(move || {
            clock.load(Ordering::SeqCst)
        })));
        let rules = Permissions::new();
        let call = args(json!({"url": "http://wiki/"}));
        let open = |state: &str| {
            gate.open(
                &rules,
                "fetch",
                &call,
                Some(state),
                &accept(ALLOW_ONCE),
                true,
            )
        };
        // Answered on the last second of its lifetime: granted.
        let state = asked(&gate, &rules, &call);
        now.fetch_add(STATE_LIFETIME.as_secs(), Ordering::SeqCst);
        let permit = open(&state).expect("still within its lifetime");
        assert!(matches!(
            permit.check(&loopback()),
            Checked::Granted(Grant::Once)
        ));
        // Answered one second later: refused.
        let state = asked(&gate, &rules, &call);
        now.fetch_add(STATE_LIFETIME.as_secs() + 1, Ordering::SeqCst);
        assert_eq!(open(&state).unwrap_err(), "an expired state");
        // A state asked now lives ten minutes from now.
        let state = asked(&gate, &rules, &call);
        now.fetch_add(STATE_LIFETIME.as_secs(), Ordering::SeqCst);
        assert!(open(&state).is_ok(), "asked at the clock's time");
        assert_eq!(STATE_LIFETIME, Duration::from_secs(600));
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        assert_eq!(
            canonical(&json!({"b": [{"d": 1, "c": "x"}], "a": null})),
            r#"{"a":null,"b":[{"c":"x","d":1}]}"#
        );
    }
}
