//! Permissions a tool requires, run in process: a rule that allows or denies, the ask
//! (a form and a signed state), the retry with the user's answer, a declined answer,
//! a client that cannot be asked, and states that are tampered, replayed, foreign or
//! for another call. The tool acts (counts) only once its permission is granted.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_kit::{
    Ask, Call, CallFuture, Decision, NeedsInput, Outcome, Permission, Permissions, Request, Rule,
    Server, ToolSpec, Toolkit,
};
use serde_json::{Map, Value, json};

/// A pack whose `reach` tool requires `net.loopback` for its `host` argument and
/// counts the times it acted.
#[derive(Default, Clone)]
struct Guarded {
    acted: Arc<AtomicUsize>,
}

impl Toolkit for Guarded {
    fn name(&self) -> &str {
        "Guarded"
    }

    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "reach".into(),
            description: "Reaches a host once permitted.".into(),
            input_schema: json!({"type": "object"}),
            annotations: Default::default(),
        }]
    }

    fn call(&self, request: Request) -> CallFuture {
        let acted = Arc::clone(&self.acted);
        Box::pin(async move {
            let host = request.args["host"].as_str().unwrap_or_default().to_owned();
            let permission = Permission::new("net.loopback", &host, format!("Reach {host}?"));
            match request.require_permission(&permission) {
                Ok(grant) => {
                    acted.fetch_add(1, Ordering::SeqCst);
                    request.text(format!("reached {host} ({grant:?})"));
                }
                Err(refusal) if refusal.is_asking() => {}
                Err(refusal) => request.error(format!("refused: {refusal}")),
            }
        })
    }
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

fn reach(host: &str) -> Call {
    Call::new("reach", args(json!({"host": host})))
}

fn answer(decision: &str) -> Map<String, Value> {
    args(json!({"permission": {"action": "accept", "content": {"decision": decision}}}))
}

/// The ask of a call that needs input, checked for its form.
fn asked(outcome: Outcome) -> NeedsInput {
    let Outcome::NeedsInput(input) = outcome else {
        panic!("expected an ask, got {outcome:?}");
    };
    let Some(Ask::Form { message, schema }) = input.asks.get("permission") else {
        panic!("expected a form under 'permission': {input:?}");
    };
    assert_eq!(message, "Reach wiki?");
    assert_eq!(
        schema,
        &json!({"type": "object", "required": ["decision"], "properties": {"decision": {
            "type": "string", "title": "Decision", "enum": ["allow once", "deny"]}}})
    );
    input
}

fn text(outcome: &Outcome) -> String {
    outcome.result().map(|r| r.text()).unwrap_or_default()
}

#[tokio::test]
async fn an_ask_answered_allow_once_runs_the_handler_again_with_the_grant() {
    let pack = Guarded::default();
    let server = Server::new("t", "1").plug(pack.clone());
    let input = asked(server.dispatch(reach("wiki").with_user_forms(true)).await);
    assert_eq!(
        pack.acted.load(Ordering::SeqCst),
        0,
        "nothing done before the grant"
    );
    let retry = reach("wiki")
        .with_user_forms(true)
        .with_input(answer("allow once"), input.state.clone());
    let outcome = server.dispatch(retry.clone()).await;
    assert_eq!(text(&outcome), "reached wiki (Once)");
    assert_eq!(pack.acted.load(Ordering::SeqCst), 1);
    // The grant does not carry over: the next call is asked again.
    asked(server.dispatch(reach("wiki").with_user_forms(true)).await);
    // Its state is single use.
    assert!(
        matches!(server.dispatch(retry).await, Outcome::BadState(ref m) if m.starts_with("Invalid or expired requestState")),
        "a replayed state is refused"
    );
    assert_eq!(pack.acted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_declined_ask_is_the_refusal_and_nothing_is_done() {
    let pack = Guarded::default();
    let server = Server::new("t", "1").plug(pack.clone());
    for responses in [
        answer("deny"),
        args(json!({"permission": {"action": "decline"}})),
        args(json!({"permission": {"action": "cancel"}})),
    ] {
        let input = asked(server.dispatch(reach("wiki").with_user_forms(true)).await);
        let retry = reach("wiki")
            .with_user_forms(true)
            .with_input(responses, input.state);
        let outcome = server.dispatch(retry).await;
        assert_eq!(text(&outcome), "refused: the user did not allow it");
    }
    assert_eq!(pack.acted.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_client_that_cannot_be_asked_gets_the_refusal() {
    let pack = Guarded::default();
    let server = Server::new("t", "1").plug(pack.clone());
    let outcome = server.dispatch(reach("wiki")).await;
    assert_eq!(
        text(&outcome),
        "refused: the client cannot be asked for permission"
    );
    assert_eq!(pack.acted.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn rules_allow_or_deny_without_asking_and_are_read_again_on_the_retry() {
    let pack = Guarded::default();
    let rules = Permissions::new()
        .with_rule(Rule::new("net.loopback", Decision::Allow).for_target("docs"))
        .with_rule(Rule::new("net.loopback", Decision::Deny).for_target("db"));
    let server = Server::new("t", "1")
        .permissions(rules.clone())
        .plug(pack.clone());
    let allowed = server.dispatch(reach("docs").with_user_forms(true)).await;
    assert_eq!(text(&allowed), "reached docs (ByRule)");
    let denied = server.dispatch(reach("db").with_user_forms(true)).await;
    assert!(
        text(&denied).starts_with("refused: a permission rule of the server denies net.loopback")
    );
    // Asked, then a deny rule arrives before the answer: the rule wins.
    let input = asked(server.dispatch(reach("wiki").with_user_forms(true)).await);
    server
        .permission_rules()
        .set_rules(vec![Rule::new("net.loopback", Decision::Deny)]);
    let retry = reach("wiki")
        .with_user_forms(true)
        .with_input(answer("allow once"), input.state);
    assert!(text(&server.dispatch(retry).await).starts_with("refused: a permission rule"));
    assert_eq!(
        pack.acted.load(Ordering::SeqCst),
        1,
        "only docs was reached"
    );
}

#[tokio::test]
async fn a_state_for_other_arguments_tampered_or_from_another_server_is_refused() {
    let pack = Guarded::default();
    let server = Server::new("t", "1").plug(pack.clone());
    let other_server = Server::new("t", "1").plug(pack.clone());
    let is_bad = |outcome: &Outcome| matches!(outcome, Outcome::BadState(_));

    let input = asked(server.dispatch(reach("wiki").with_user_forms(true)).await);
    let state = input.state.clone().unwrap();
    let other_args = Call::new("reach", args(json!({"host": "db"})))
        .with_user_forms(true)
        .with_input(answer("allow once"), Some(state.clone()));
    assert!(is_bad(&server.dispatch(other_args).await));

    let input = asked(server.dispatch(reach("wiki").with_user_forms(true)).await);
    let mut tampered = input.state.clone().unwrap();
    let last = tampered.pop().unwrap();
    tampered.push(if last == '0' { '1' } else { '0' });
    let retry = reach("wiki")
        .with_user_forms(true)
        .with_input(answer("allow once"), Some(tampered));
    assert!(is_bad(&server.dispatch(retry).await));

    let retry = reach("wiki")
        .with_user_forms(true)
        .with_input(answer("allow once"), input.state);
    assert!(is_bad(&other_server.dispatch(retry).await));
    assert_eq!(pack.acted.load(Ordering::SeqCst), 0);
}
