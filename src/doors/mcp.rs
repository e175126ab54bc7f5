//! `steward mcp`: the Model Context Protocol on stdio
//! (steward-guide(7), "The MCP server"), built on the official `rmcp` SDK.
//! Another front door to the engine: each tool is one verb, called as actor
//! `agent` under the same rules and errors; a refused call is a tool error
//! whose text says why. The async runtime is this command's alone
//! (current-thread). Each call resolves the store afresh, so the clock
//! moves and a person's configuration edit counts without restarting the
//! server.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::context::{Context, Environment, GlobalOptions};
use crate::engine::{self, AddRequest, CompleteRequest, PromptRequest, Turn, UpdateRequest};
use crate::error::{Error, Input, Result};
use crate::model::book::{Ending, Key};
use crate::model::plan::NodeStatus;
use crate::model::{Check, Priority};
use crate::rules::assessment::{Outcome, Report};

/// Serves MCP on stdin and stdout until the client closes stdin. The store
/// is resolved once first, so a server started in the wrong place says so
/// at once.
pub fn serve(options: GlobalOptions, env: Environment) -> Result<()> {
    let ctx = Context::resolve(&options, env.clone())?;
    if !ctx.store.exists() {
        return Err(Error::NotAStore {
            searched: ctx.root.clone(),
        });
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|err| {
            Error::io(
                std::path::Path::new("-"),
                "cannot start the MCP runtime",
                err,
            )
        })?;
    runtime.block_on(async move {
        let server = Steward { options, env };
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|err| Error::Program(format!("MCP: {err}")))?;
        running
            .waiting()
            .await
            .map_err(|err| Error::Program(format!("MCP: {err}")))?;
        Ok(())
    })
}

struct Steward {
    options: GlobalOptions,
    env: Environment,
}

impl ServerHandler for Steward {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("steward", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "steward keeps durable goals and judges them. Read the stewardship block (stewardship_block) on a heartbeat, work on the goals it offers, record each step with goal_assess, and ask the judge with goal_complete when every criterion is met. You act as the agent: what only a person may do is refused with the command the person runs.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, McpError> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let called = Context::resolve(&self.options, self.env.clone())
            .map_err(Refusal::Error)
            .and_then(|ctx| call(&ctx, &request.name, arguments));
        let result = match called {
            Ok(value) => CallToolResult::success(vec![ContentBlock::text(
                serde_json::to_string_pretty(&value).expect("JSON serializes"),
            )]),
            Err(Refusal::UnknownTool) => {
                return Err(McpError::invalid_params(
                    format!("no tool `{}`", request.name),
                    None,
                ));
            }
            Err(Refusal::Error(err)) => CallToolResult::error(vec![ContentBlock::text(format!(
                "steward refused (exit {}): {}",
                err.exit_code(),
                message(&err)
            ))]),
        };
        Ok(result.into())
    }
}

enum Refusal {
    UnknownTool,
    Error(Error),
}

impl From<Error> for Refusal {
    fn from(err: Error) -> Self {
        Refusal::Error(err)
    }
}

/// The run whose client started this server (a sandboxed Codex run is
/// given one with `STEWARD_DISPATCH_ID`): what it records is that run's
/// report, as from the run's own shell.
fn run_of_server(ctx: &Context) -> Option<String> {
    ctx.env.var("STEWARD_DISPATCH_ID").map(str::to_string)
}

/// Strict arguments: unknown keys and wrong types are refused.
fn arguments<T: DeserializeOwned>(tool: &str, value: Value) -> std::result::Result<T, Error> {
    serde_json::from_value(value)
        .map_err(|err| Error::bad_value(format!("{tool} arguments"), err.to_string()))
}

fn call(ctx: &Context, tool: &str, value: Value) -> std::result::Result<Value, Refusal> {
    let doc = |loaded: &crate::store::LoadedGoal| goal_value(ctx, loaded);
    Ok(match tool {
        "goal_list" => {
            let args: ListArgs = arguments(tool, value)?;
            let request = engine::list::ListRequest {
                all: args.all,
                ..Default::default()
            };
            let mut found = engine::list::list(ctx, request)?;
            let line = |g: &crate::store::LoadedGoal| {
                json!({
                    "label": g.goal.label,
                    "title": g.goal.title,
                    "status": g.goal.status.as_str(),
                    "priority": g.goal.priority.as_str(),
                    "criteria_met": g.goal.criteria_met(),
                    "criteria_total": g.goal.criteria.len(),
                })
            };
            let mut goals: Vec<Value> = found.open.iter().map(line).collect();
            found.each_closed(ctx, |g, _| goals.push(line(g)));
            json!({
                "goals": goals,
                "unreadable": found.problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
            })
        }
        "goal_show" => {
            let args: GoalArgs = arguments(tool, value)?;
            let request = engine::show::ShowRequest {
                waits: true,
                provenance: false,
            };
            let shown = engine::show::show(ctx, &args.goal, request)?;
            let mut value =
                serde_json::to_value(engine::view::goal_json(ctx, &shown.loaded, &shown.book))
                    .expect("goals serialize");
            if !shown.loaded.goal.status.is_terminal() {
                // What keeps it from being worked now (`steward why`).
                value["waits"] = json!(shown.waits);
            }
            value
        }
        "goal_register" => {
            let args: RegisterArgs = arguments(tool, value)?;
            let request = args.into_request()?;
            let saved = engine::add(ctx, &request)?;
            let mut value = doc(&saved.goal)?;
            value["warnings"] = json!(saved.notices.warnings);
            value
        }
        "goal_assess" => {
            let args: AssessArgs = arguments(tool, value)?;
            let (goal, dispatch_id, report) = args.into_report()?;
            let dispatch_id = dispatch_id.or_else(|| run_of_server(ctx));
            doc(&engine::assess(ctx, &goal, &report, dispatch_id.as_deref())?.goal)?
        }
        "goal_update" => {
            let args: UpdateArgs = arguments(tool, value)?;
            let (goal, request) = args.into_request()?;
            doc(&engine::update(ctx, &goal, &request)?.saved.goal)?
        }
        "goal_complete" => {
            let args: CompleteArgs = arguments(tool, value)?;
            let request = CompleteRequest {
                reason: one_line("reason", &args.reason)?,
                met: args.met,
                dispatch_id: args.dispatch_id.or_else(|| run_of_server(ctx)),
            };
            match engine::complete(ctx, &args.goal, &request)? {
                engine::Judged::Completed(saved) => doc(&saved.goal)?,
                engine::Judged::AwaitsPerson { saved, criteria } => {
                    let mut value = doc(&saved.goal)?;
                    value["awaits_person"] = json!(criteria);
                    value
                }
                engine::Judged::AwaitsMerge(saved) => {
                    let mut value = doc(&saved.goal)?;
                    value["awaits_merge"] = json!(true);
                    value
                }
            }
        }
        "goal_work" => {
            let args: WorkArgs = arguments(tool, value)?;
            let reason = args.reason.map(|r| one_line("reason", &r)).transpose()?;
            let status = match args.action.as_str() {
                "start" => NodeStatus::InProgress,
                "done" => NodeStatus::Done,
                "block" if reason.is_none() => {
                    return Err(Error::bad_value(
                        "reason",
                        "block needs one: say what blocks the node",
                    )
                    .into());
                }
                "block" => NodeStatus::Blocked,
                "cancel" => NodeStatus::Cancelled,
                other => {
                    return Err(Error::bad_value(
                        "action",
                        format!("`{other}`: expected start, done, block or cancel"),
                    )
                    .into());
                }
            };
            let request = engine::work::NodeWork {
                node: args.node,
                status,
                reason,
            };
            doc(&engine::work::work(ctx, &args.goal, &request)?.goal)?
        }
        "goal_handoff" => {
            let args: HandoffArgs = arguments(tool, value)?;
            doc(&engine::handoff::handoff(ctx, &args.goal, args.handoff, args.node)?.goal)?
        }
        "task_spawned" => {
            let args: SpawnedArgs = arguments(tool, value)?;
            let request = engine::task::SpawnRequest {
                label: crate::model::book::task_label(&args.label)
                    .map_err(|why| Error::bad_value("label", why))?,
                goal: args.goal,
                agent: args.agent,
                session: args.session,
                pid: args.pid,
                timeout_secs: args
                    .timeout
                    .map(|t| crate::model::duration::HumanDuration::parse(&t).map(|d| d.as_secs()))
                    .transpose()
                    .map_err(|why| Error::bad_value("timeout", why))?,
                summary: args.summary.map(|s| one_line("summary", &s)).transpose()?,
            };
            let (id, outcome) = engine::task::spawned(ctx, &request)?;
            json!({"id": id, "changed": outcome.transitions.len(), "warnings": outcome.warnings})
        }
        "task_ended" => {
            let args: EndedArgs = arguments(tool, value)?;
            let key = match (args.session, args.label) {
                (Some(session), _) => Key::Session(session),
                (None, Some(label)) => Key::Label(label),
                (None, None) => {
                    return Err(Error::BadRequest("give `label` or `session`".to_string()).into());
                }
            };
            let ending = match args.outcome.as_str() {
                "ok" => Ending::Ok,
                "error" => Ending::Error,
                "timeout" => Ending::Timeout,
                "killed" => Ending::Killed,
                other => {
                    return Err(Error::bad_value(
                        "outcome",
                        format!("`{other}`: expected ok, error, timeout or killed"),
                    )
                    .into());
                }
            };
            let outcome = engine::task::ended(ctx, &key, ending, args.detail)?;
            json!({"changed": outcome.obligations().map(|o| json!({"id": o.id, "label": o.label, "status": o.status.as_str()})).collect::<Vec<_>>()})
        }
        "stewardship_block" => {
            let args: BlockArgs = arguments(tool, value)?;
            let turn = match (args.heartbeat, args.message) {
                (_, Some(message)) => Turn::Message(message),
                (false, None) => Turn::Ordinary,
                (true, None) => Turn::Heartbeat,
            };
            let outcome = engine::prompt(
                ctx,
                &PromptRequest {
                    turn,
                    max_chars: args.max_chars,
                },
            )?;
            json!({
                "text": outcome.text,
                "heartbeat": outcome.heartbeat,
                "offered": outcome.offered,
                "attention": outcome.attention,
                "next": match outcome.status {
                    crate::rules::stewardship::LoopStatus::Work => "work",
                    crate::rules::stewardship::LoopStatus::NeedsPerson => "a person is needed",
                    crate::rules::stewardship::LoopStatus::Idle => "nothing to do now",
                },
            })
        }
        _ => return Err(Refusal::UnknownTool),
    })
}

/// An error as a client reads it: inputs named by the tools' parameters.
fn message(err: &Error) -> String {
    err.named_by(|input| match input {
        Input::Criterion => "criteria",
        Input::Description => "description",
        Input::Deadline => "deadline",
        Input::WaitUntil => "wait_until",
        Input::Agent => "agent",
        Input::Met => "met",
        Input::Check => "check",
        Input::Uncheck => "uncheck",
        Input::RemoveCriterion => "remove_criteria",
        Input::Verify => "verify",
        Input::Node => "node",
        Input::Handoff => "handoff",
        Input::OverseerUpdate => "overseer_update",
        Input::Reason => "reason",
        // No tool takes it: only a person confirms, at the command line.
        Input::Confirmed => "`--confirmed` at the command line (a person's)",
    })
}

/// A goal as the tools return it: the same view as `show --json`.
fn goal_value(ctx: &Context, loaded: &crate::store::LoadedGoal) -> Result<Value> {
    engine::view::goal_value(ctx, loaded)
}

fn one_line(name: &str, text: &str) -> std::result::Result<String, Error> {
    let line = crate::text::one_line(text);
    if line.is_empty() {
        return Err(Error::bad_value(name, "must not be empty"));
    }
    Ok(line)
}

fn time(name: &str, text: &str) -> std::result::Result<chrono::DateTime<chrono::Utc>, Error> {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|err| Error::bad_value(name, format!("`{text}` is not an RFC 3339 time ({err})")))
}

/// US dollars, as the command line takes them: from 0 to 10^9.
fn usd(name: &str, value: Option<f64>) -> std::result::Result<Option<f64>, Error> {
    match value {
        Some(usd) if !(usd.is_finite() && (0.0..=crate::model::limits::MAX_USD).contains(&usd)) => {
            Err(Error::bad_value(name, "expected US dollars from 0 to 10^9"))
        }
        value => Ok(value),
    }
}

fn checks(specs: &[String]) -> std::result::Result<Vec<Check>, Error> {
    specs
        .iter()
        .map(|spec| Check::parse_spec(spec).map_err(|why| Error::bad_value("verify", why)))
        .collect()
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default)]
    all: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GoalArgs {
    goal: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RegisterArgs {
    label: String,
    title: String,
    #[serde(default)]
    description: Option<String>,
    criteria: Vec<String>,
    #[serde(default)]
    #[schemars(extend("enum" = ["critical", "high", "normal", "low"]))]
    priority: Option<String>,
    #[serde(default)]
    verify: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    max_dispatches: Option<u64>,
    #[serde(default)]
    max_assessments: Option<u64>,
    #[serde(default)]
    max_iterations: Option<u64>,
    #[serde(default)]
    #[schemars(range(min = 0))]
    max_cost_usd: Option<f64>,
    #[serde(default)]
    deadline: Option<String>,
}

impl RegisterArgs {
    fn into_request(self) -> std::result::Result<AddRequest, Error> {
        Ok(AddRequest {
            label: crate::model::label::normalize(&self.label)
                .map_err(|why| Error::bad_value("label", why))?,
            title: one_line("title", &self.title)?,
            description: self.description,
            criteria: self
                .criteria
                .iter()
                .map(|c| one_line("criteria", c))
                .collect::<std::result::Result<_, _>>()?,
            priority: self
                .priority
                .map(|p| Priority::parse_known(&p).map_err(|why| Error::bad_value("priority", why)))
                .transpose()?,
            checks: checks(&self.verify)?,
            max_dispatches: self.max_dispatches,
            max_assessments: self.max_assessments,
            bounds: crate::model::Bounds {
                max_iterations: self.max_iterations,
                deadline: self.deadline.map(|d| time("deadline", &d)).transpose()?,
                max_cost_usd: usd("max_cost_usd", self.max_cost_usd)?,
            },
            tags: self.tags,
            ..AddRequest::default()
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AssessArgs {
    goal: String,
    summary: String,
    #[serde(default)]
    next: Option<String>,
    #[serde(default)]
    blockers: Option<Vec<String>>,
    #[serde(default)]
    #[schemars(inner(range(min = 1)))]
    met: Vec<usize>,
    #[serde(default)]
    dispatched: bool,
    #[serde(default)]
    #[schemars(range(min = 0))]
    cost_usd: Option<f64>,
    #[serde(default)]
    #[schemars(extend("enum" = ["ok", "failed"]))]
    outcome: Option<String>,
    #[serde(default)]
    stuck: bool,
    #[serde(default)]
    wait_until: Option<String>,
    #[serde(default)]
    wait_for_check: bool,
    #[serde(default)]
    dispatch_id: Option<String>,
}

impl AssessArgs {
    fn into_report(self) -> std::result::Result<(String, Option<String>, Report), Error> {
        let report = Report {
            summary: one_line("summary", &self.summary)?,
            next: self.next.map(|n| one_line("next", &n)).transpose()?,
            blockers: self
                .blockers
                .map(|list| list.iter().map(|b| one_line("blockers", b)).collect())
                .transpose()?,
            met: self.met,
            dispatched: self.dispatched,
            cost_usd: usd("cost_usd", self.cost_usd)?,
            outcome: match self.outcome.as_deref() {
                None => None,
                Some("ok") => Some(Outcome::Ok),
                Some("failed") => Some(Outcome::Failed),
                Some(other) => {
                    return Err(Error::bad_value(
                        "outcome",
                        format!("`{other}`: expected ok or failed"),
                    ));
                }
            },
            stuck: self.stuck,
            wait_until: self
                .wait_until
                .map(|t| time("wait_until", &t))
                .transpose()?,
            wait_for_check: self.wait_for_check,
            session: None,
        };
        Ok((self.goal, self.dispatch_id, report))
    }
}

/// A handoff, the same object `steward handoff --from-json` reads
/// (steward-guide(7), "NOTHING LOST BETWEEN SESSIONS").
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HandoffArgs {
    goal: String,
    #[serde(default)]
    node: Option<String>,
    #[schemars(schema_with = "handoff_schema")]
    handoff: crate::model::Handoff,
}

/// One plan node moves, as `steward work GOAL NODE ACTION`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WorkArgs {
    goal: String,
    node: String,
    #[schemars(extend("enum" = ["start", "done", "block", "cancel"]))]
    action: String,
    #[serde(default)]
    reason: Option<String>,
}

/// What an agent may change (steward-design(7), "An agent is judged, never the judge");
/// anything else is an unknown key.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateArgs {
    goal: String,
    #[serde(default)]
    add_criteria: Vec<String>,
    #[serde(default)]
    #[schemars(inner(range(min = 1)))]
    check: Vec<usize>,
    #[serde(default)]
    #[schemars(inner(range(min = 1)))]
    uncheck: Vec<usize>,
    #[serde(default)]
    blockers: Option<Vec<String>>,
    #[serde(default)]
    verify: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    max_dispatches: Option<u64>,
    #[serde(default)]
    max_assessments: Option<u64>,
    #[serde(default)]
    max_iterations: Option<u64>,
    #[serde(default)]
    #[schemars(range(min = 0))]
    max_cost_usd: Option<f64>,
}

impl UpdateArgs {
    fn into_request(self) -> std::result::Result<(String, UpdateRequest), Error> {
        let request = UpdateRequest {
            add_criteria: self
                .add_criteria
                .iter()
                .map(|c| one_line("add_criteria", c))
                .collect::<std::result::Result<_, _>>()?,
            check: self.check,
            uncheck: self.uncheck,
            blockers: self
                .blockers
                .map(|list| list.iter().map(|b| one_line("blockers", b)).collect())
                .transpose()?,
            verify: checks(&self.verify)?,
            tags: self.tags,
            note: self.note,
            max_dispatches: self.max_dispatches,
            max_assessments: self.max_assessments,
            max_iterations: self.max_iterations,
            max_cost_usd: usd("max_cost_usd", self.max_cost_usd)?,
            ..UpdateRequest::default()
        };
        Ok((self.goal, request))
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CompleteArgs {
    goal: String,
    reason: String,
    #[serde(default)]
    #[schemars(inner(range(min = 1)))]
    met: Vec<usize>,
    #[serde(default)]
    dispatch_id: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SpawnedArgs {
    label: String,
    #[serde(default)]
    goal: Option<String>,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    #[schemars(range(min = 1))]
    pid: Option<u32>,
    #[serde(default)]
    timeout: Option<String>,
    #[serde(default)]
    summary: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EndedArgs {
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    session: Option<String>,
    #[schemars(extend("enum" = ["ok", "error", "timeout", "killed"]))]
    outcome: String,
    #[serde(default)]
    detail: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct BlockArgs {
    #[serde(default = "yes")]
    heartbeat: bool,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    max_chars: Option<usize>,
}

fn yes() -> bool {
    true
}

/// The schema of a handoff object (model::Handoff; `at`, `by` and `node`
/// are steward's).
fn handoff_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let text = json!({"type": "string"});
    let texts = json!({"type": "array", "items": {"type": "string"}});
    let schema = json!({
        "type": "object",
        "properties": {
            "summary": text,
            "node": text,
            "current_state": text,
            "decisions": {"type": "array", "items": {
                "type": "object",
                "properties": {"decision": text, "rationale": text},
                "required": ["decision"],
                "additionalProperties": false,
            }},
            "next_actions": texts,
            "open_questions": texts,
            "blockers": texts,
            "evidence": {
                "type": "object",
                "properties": {"files": texts, "commands": texts, "tests": texts, "commits": texts, "prs": texts, "urls": texts},
                "additionalProperties": false,
            },
        },
        "required": ["summary"],
        "additionalProperties": false,
    });
    schemars::Schema::try_from(schema).expect("the handoff schema is an object")
}

/// The tools, each with the schema of the struct its arguments are read
/// into: derived from it, so a parameter added to one is in the other.
fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "goal_list",
            "List the open goals (all: closed ones too) with status, priority and criteria met.",
            input_schema::<ListArgs>(),
        ),
        Tool::new(
            "goal_show",
            "Everything about one goal: criteria, checks, budget, progress, blockers, receipt, and what keeps it from being worked now (waits).",
            input_schema::<GoalArgs>(),
        ),
        Tool::new(
            "goal_register",
            "Register a goal with acceptance criteria a third party could check. A critical or high goal is added unconfirmed: a person confirms it. verify: checks as TYPE:TARGET@N.",
            input_schema::<RegisterArgs>(),
        ),
        Tool::new(
            "goal_assess",
            "Record one assessment: what is true now, the next step, blockers (replaces them; [] clears), criteria met, a dispatch, cost, outcome, stuck (a person must help), or a wait (wait_until, wait_for_check).",
            input_schema::<AssessArgs>(),
        ),
        Tool::new(
            "goal_update",
            "Change what an agent may change: tick or untick criteria, blockers, tags, a note, lower a budget or tighten a bound. The objective, the criteria and the checks are a person's: add_criteria and verify are refused for an agent, with the command the person runs.",
            input_schema::<UpdateArgs>(),
        ),
        Tool::new(
            "goal_complete",
            "Ask the judge to complete a goal: it runs every check now and needs every criterion met; otherwise it refuses and says what is missing.",
            input_schema::<CompleteArgs>(),
        ),
        Tool::new(
            "goal_work",
            "Move one node of a goal's plan (P1, T1.2, S1.2.1): start it, mark it done when its acceptance holds, block it (reason: what blocks it) or cancel it. Parents roll up; when every phase is done the goal goes to verifying and the judge decides.",
            input_schema::<WorkArgs>(),
        ),
        Tool::new(
            "goal_handoff",
            "Leave what the next session needs before you stop: summary, current state, decisions with rationale, next actions, open questions, blockers, evidence. The latest handoff is shown with the goal and in the next run's instruction. node: the plan node it is about.",
            input_schema::<HandoffArgs>(),
        ),
        Tool::new(
            "task_spawned",
            "A subagent was spawned: track what it owes until its result is delivered.",
            input_schema::<SpawnedArgs>(),
        ),
        Tool::new(
            "task_ended",
            "A subagent ended: ok (its result arrived), error, timeout or killed.",
            input_schema::<EndedArgs>(),
        ),
        Tool::new(
            "stewardship_block",
            "The stewardship block: the goals due for work with the exact next steps, and what waits for a person. heartbeat (default true); or message: the person's last message.",
            input_schema::<BlockArgs>(),
        ),
    ]
}

/// The JSON schema of `Args` as a tool's input: an object that takes
/// only the fields `Args` reads, as `rmcp` expects it.
fn input_schema<Args: JsonSchema>() -> JsonObject {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator();
    let mut schema =
        serde_json::to_value(generator.into_root_schema_for::<Args>()).expect("schemas serialize");
    // The struct's name, its doc comment and Rust's integer widths say
    // nothing to a client.
    tidy(&mut schema);
    match schema {
        Value::Object(mut map) => {
            map.remove("description");
            map
        }
        _ => unreachable!("a struct's schema is an object"),
    }
}

/// `schema` as the input reads, not as Rust holds it: no `title`, no
/// integer `format`, and an optional field is one that may be left out
/// (its type without `null`, no `default`).
fn tidy(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("title").is_some_and(Value::is_string) {
                map.remove("title");
            }
            if let Some(Value::Array(types)) = map.get("type")
                && let [kind, null] = types.as_slice()
                && null == "null"
            {
                let kind = kind.clone();
                map.insert("type".to_string(), kind);
                map.remove("default");
            }
            if map.contains_key("type") {
                map.remove("default");
            }
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("int") || f.starts_with("uint") || f == "double")
            {
                map.remove("format");
            }
            map.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_outside_the_range_are_refused_by_name() {
        for bad in [-1.0, f64::NAN, f64::INFINITY, 2e9] {
            let err = usd("max_cost_usd", Some(bad)).unwrap_err();
            assert!(message(&err).contains("max_cost_usd"), "{err}");
        }
        assert_eq!(usd("cost_usd", Some(0.5)).unwrap(), Some(0.5));
        assert_eq!(usd("cost_usd", None).unwrap(), None);
    }

    #[test]
    fn a_tool_schema_is_its_struct_as_the_input_reads() {
        let register = input_schema::<RegisterArgs>();
        assert_eq!(register["required"], json!(["label", "title", "criteria"]));
        assert_eq!(register["additionalProperties"], json!(false));
        assert_eq!(
            register["properties"]["priority"],
            json!({"type": "string", "enum": ["critical", "high", "normal", "low"]})
        );
        assert_eq!(
            register["properties"]["max_dispatches"],
            json!({"type": "integer", "minimum": 0})
        );
        let assess = input_schema::<AssessArgs>();
        assert_eq!(
            assess["properties"]["met"],
            json!({"type": "array", "items": {"type": "integer", "minimum": 1}})
        );
        // Nothing of Rust's: no struct names, widths, nulls or defaults.
        for tool in tools() {
            let text = serde_json::to_string(&*tool.input_schema).unwrap();
            for rust in [
                "\"title\":\"",
                "\"format\"",
                "null",
                "\"default\"",
                "$schema",
            ] {
                assert!(!text.contains(rust), "{}: {rust} in {text}", tool.name);
            }
        }
    }
}
