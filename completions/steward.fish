# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_steward_global_optspecs
    string join \n C/root= json color= q/quiet actor= commit no-commit lock-timeout= h/help V/version
end

function __fish_steward_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_steward_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_steward_using_subcommand
    set -l cmd (__fish_steward_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c steward -n "__fish_steward_needs_command" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_needs_command" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_needs_command" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_needs_command" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_needs_command" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_needs_command" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_needs_command" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_needs_command" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_needs_command" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_needs_command" -f -a "init" -d 'Create steward.yaml (every key, commented, with its default) and state/goals/ in the working directory, or in the root given with -C. Running it again creates only what is missing'
complete -c steward -n "__fish_steward_needs_command" -f -a "add" -d 'Register a goal: what must be achieved and how to tell it is done'
complete -c steward -n "__fish_steward_needs_command" -f -a "list" -d 'List goals: open ones by default, sorted by priority then label. Each line: label, status, priority, criteria met/total, age (since the goal was created: 45s, 12m, 30h, 9d, 6w, 2y) and title'
complete -c steward -n "__fish_steward_needs_command" -f -a "show" -d 'Show one goal: criteria, checks, budget, bounds, progress, blockers and recent history'
complete -c steward -n "__fish_steward_needs_command" -f -a "why" -d 'Say every reason the goal is not being worked now: its status, a wait, its cooldown or a follow-up\'s backoff (until when), a run under way, the hourly run window, the day\'s spend cap, `max_parallel`, its dispatch budget, a plan with no node ready, dispatch off. Nothing held: the next `tick` starts a run. Exit 0 either way'
complete -c steward -n "__fish_steward_needs_command" -f -a "edit" -d 'Open a goal in $VISUAL or $EDITOR (else vi) and validate it when the editor exits'
complete -c steward -n "__fish_steward_needs_command" -f -a "update" -d 'Change a goal\'s title, description, priority, criteria, blockers, checks, budget, bounds, label or tags, or add a note to its history'
complete -c steward -n "__fish_steward_needs_command" -f -a "pause" -d 'Pause a goal: the watchdog and the stewardship block leave it alone until `steward resume`'
complete -c steward -n "__fish_steward_needs_command" -f -a "resume" -d 'Resume a paused goal: it goes back to the status it was paused from (active, or blocked when it was waiting for a person) and the watchdog looks at it again on its next pass'
complete -c steward -n "__fish_steward_needs_command" -f -a "confirm" -d 'Confirm a goal: unconfirmed goals are not offered to the agent'
complete -c steward -n "__fish_steward_needs_command" -f -a "abandon" -d 'Abandon a goal for good: it becomes terminal, stops being worked on, and its file moves to the closed goals'
complete -c steward -n "__fish_steward_needs_command" -f -a "cancel" -d 'Abandon a goal for good: it becomes terminal, stops being worked on, and its file moves to the closed goals'
complete -c steward -n "__fish_steward_needs_command" -f -a "unblock" -d 'Unblock a goal a human has looked at: it becomes active, its escalation, consecutive failures and circuit-breaker streaks are cleared, and the runs before now no longer count against it: the next `tick` starts fresh work (a planned goal is planned again first), told what you said. A goal blocked because its budget is used up needs `steward reset-budget` (or a bigger budget) instead'
complete -c steward -n "__fish_steward_needs_command" -f -a "accept" -d 'Accept a goal as it now is, after looking at what changed outside steward (a hand edit, a file put in place, a plain `git pull`): the goal stops waiting for a person and agents may work on it again. For a goal whose file was removed outside steward, lets it go and frees its label. A person\'s other commands on a goal accept it too; this one changes nothing else'
complete -c steward -n "__fish_steward_needs_command" -f -a "reset-budget" -d 'Reset a goal\'s dispatch and assessment counters. A goal blocked by its budget becomes active. Hard bounds still count every assessment ever made (progress.iterations), so a reset never lifts them'
complete -c steward -n "__fish_steward_needs_command" -f -a "undo" -d 'Take back the last change steward made to a goal: the goal file becomes, byte for byte, what that command found, stamped with updated_at and a history line `undone`, and an event records it (the undone change stays in the event log)'
complete -c steward -n "__fish_steward_needs_command" -f -a "delete" -d 'Remove a goal registered by mistake: its file is deleted, a `deleted` event joins its events in the event log (which keeps them all), and the mirror forgets it. `steward undo LABEL` brings it back while nothing else changed it since. Only a person may delete; to stop work on a real goal, `abandon` it instead (it stays readable, with its reason)'
complete -c steward -n "__fish_steward_needs_command" -f -a "assess" -d 'Record one assessment of a goal: what the agent found, what comes next, and what it did'
complete -c steward -n "__fish_steward_needs_command" -f -a "prompt" -d 'Print the stewardship block for the agent\'s turn'
complete -c steward -n "__fish_steward_needs_command" -f -a "complete" -d 'Judge a goal done and close it: run every mechanical check now and require each to pass and every acceptance criterion to be met (criteria given with --met and those of passing checks count). Otherwise refuse with exit 4, say what is missing, and change nothing'
complete -c steward -n "__fish_steward_needs_command" -f -a "handoff" -d 'Record what this session leaves for the next: where things stand, what was decided and why, what to do next, what is open, what blocks, and the evidence. The latest handoff is shown by `show`, in the stewardship block and in the next run\'s instruction, so a fresh session starts where this one stopped; every handoff is in the event log. Give it as JSON (--from-json: summary, current_state, decisions[{decision, rationale}], next_actions[], open_questions[], blockers[], evidence{files, commands, tests, commits, prs, urls}) or with the options'
complete -c steward -n "__fish_steward_needs_command" -f -a "plan" -d 'Break a goal into phases, tasks and subtasks that an agent works through: the planner prompt, the planner\'s JSON imported, the plan shown'
complete -c steward -n "__fish_steward_needs_command" -f -a "work" -d 'Move one node of a goal\'s plan: start it, mark it done, block it with a reason, or cancel it. Its line in the goal file changes and nothing else; a task is done when its subtasks are, a phase when its tasks are, and when every phase is done the goal goes to verifying (the judge still decides: `steward complete`)'
complete -c steward -n "__fish_steward_needs_command" -f -a "tick" -d 'Run one watchdog pass over the open goals that are not paused: hard bounds fail a goal, budgets and repeated failures block it, idle goals stall, passing checks tick their criteria and a goal whose checks all pass with every criterion met becomes `verifying`. Then refresh the mirror'
complete -c steward -n "__fish_steward_needs_command" -f -a "status" -d 'One screen: counts by status, every goal that waits for a person with the command to run, goals parked and what they wait for, runs under way, goals that moved in the last 24 hours, spend against budgets, when tick last ran, and each open goal with a bar of criteria met and of budget used. Exit 0 whatever it reports (1 on error)'
complete -c steward -n "__fish_steward_needs_command" -f -a "forecast" -d 'Say, from this store\'s own runs, how many more runs each workable goal likely needs, what they cost and when the last one ends at the current limits (dispatch.max_parallel, the hourly dispatches, the day\'s spend cap, each goal\'s cooldown), with the basis of each guess: the goal\'s own runs, the store\'s, or unknown. Also when the day\'s spend cap is reached and which agents a usage limit holds. A forecast is not a promise: it assumes the next runs go as the past ones did. --json prints {schema_version, at, goals, cap_reached, cost_usd, limited}'
complete -c steward -n "__fish_steward_needs_command" -f -a "sync" -d 'Share the store through its git remote (git.remote): commit what steward owns, pull, render the mirror\'s block again, push, and pull again when the push is rejected. Two machines that changed the same goal stop the pull: nothing is merged or lost, both versions are kept under state/conflicts/, and sync exits 3 naming the files. Goals changed outside steward are recorded and held for a person before the commit (exit 3); goals the merge changed are taken as steward\'s: the remote is trusted'
complete -c steward -n "__fish_steward_needs_command" -f -a "resolve" -d 'Choose which version of a file both machines changed is kept, after `steward sync` stopped on a conflict: ours, theirs, or a file you merged by hand. Once every conflicted file has a choice, the merge is made again with them and committed, the chosen goals are taken as yours, and the copies under state/conflicts/ are removed; `steward sync` then pushes it. A person\'s command'
complete -c steward -n "__fish_steward_needs_command" -f -a "digest" -d 'What happened since a time (default: the last 24 hours): goals completed, with what the judge\'s receipt rests on; goals failed, abandoned and blocked, with why; goals waiting for a person (a merge, a review, a judgment); criteria met, and a failing check that says otherwise; agent runs and what they cost. Short enough to read on a phone. Exit 0 whatever it reports (1 on error)'
complete -c steward -n "__fish_steward_needs_command" -f -a "report" -d 'Write one self-contained HTML page to DIR/index.html (DIR is created): the open goals by status with bars for criteria met and budget used, their plans, what waits for a person with the command to run, goals closed, events and agent runs since a time, and spend. No script, nothing fetched from anywhere; it reads well without its style and on a phone. Cron can make it and a web server publish DIR. Exit 0 (1 on error)'
complete -c steward -n "__fish_steward_needs_command" -f -a "dispatch" -d 'Start one agent run for a goal now, inside every budget (the goal\'s dispatches, the hourly window, dispatch.max_parallel, the daily spend cap). The run is supervised like the ones tick starts: see `steward runs`'
complete -c steward -n "__fish_steward_needs_command" -f -a "runs" -d 'List the agent runs steward started: the ones under way and the recent ones (--all: every one), with agent, age, outcome and cost'
complete -c steward -n "__fish_steward_needs_command" -f -a "schedule" -d 'Have cron, a systemd user timer or launchd run this store\'s watchdog pass (`steward -C ROOT tick -q`) every few minutes'
complete -c steward -n "__fish_steward_needs_command" -f -a "hook" -d 'Answer an agent harness\'s hook (the JSON it sends on stdin), or install steward\'s hooks into a harness\'s settings'
complete -c steward -n "__fish_steward_needs_command" -f -a "mcp" -d 'Serve the Model Context Protocol on stdio: the agent commands as tools, called as actor agent (register it with `steward hook install mcp`)'
complete -c steward -n "__fish_steward_needs_command" -f -a "merge-driver" -d 'Git\'s merge driver for steward\'s files (registered by `init --git`; not for people)'
complete -c steward -n "__fish_steward_needs_command" -f -a "run-agent" -d 'Supervise one recorded agent run to its end (started by tick and dispatch; not for people)'
complete -c steward -n "__fish_steward_needs_command" -f -a "task" -d 'Track what spawned subagents owe: results to deliver, failures to report'
complete -c steward -n "__fish_steward_needs_command" -f -a "tasks" -d 'List obligations: pending ones by default (running, arrived, failed, timed out, cancelled), every one with --all'
complete -c steward -n "__fish_steward_needs_command" -f -a "budget" -d 'Show dispatches and assessments against each open goal\'s budget, iterations, cost and deadline against its bounds, and the dispatches of the last hour against global_limits.max_dispatches_per_hour (counted from the event log)'
complete -c steward -n "__fish_steward_needs_command" -f -a "replies" -d 'List the answers notifications offered (steward-guide(7), "ANSWERING FROM THE PHONE"): each one\'s act, goal and expiry, and whether it is still open, was applied, refused, or expired; then answers refused that no offer explains (forged, edited, or another machine\'s)'
complete -c steward -n "__fish_steward_needs_command" -f -a "fleet" -d 'List the machines that share this store (steward-guide(7), "A FLEET OF MACHINES"): each one\'s last pass, its free run slots, its agents (usable here, limited until when) and what it runs now. A machine with no pass for fleet.stale_after comes first, marked stale; a record this machine cannot verify is marked so and counts for nothing'
complete -c steward -n "__fish_steward_needs_command" -f -a "intake" -d 'Make a goal of every open issue of REPO labelled LABEL that no goal has yet (a person\'s command; run it again and it takes only new ones): each as `add --from-issue` makes it. An issue a goal already has (open or closed, by its origin) is left alone; one that cannot become a goal is said and the others go on (exit 1)'
complete -c steward -n "__fish_steward_needs_command" -f -a "mirror" -d 'Regenerate steward\'s block in ACTIVE-TASKS.md (mirror.path) from every open goal. Everything outside the block stays as it is; the file and the block are created when missing. With --check, change nothing and exit 1 when the block is stale. --json prints {"schema_version":1, "path", "enabled", "current"} with --check, {…, "updated", "open_goals"} without'
complete -c steward -n "__fish_steward_needs_command" -f -a "audit" -d 'Print the event log as JSON lines {ts, goal_id, label, actor, action, from, to, detail}, oldest first'
complete -c steward -n "__fish_steward_needs_command" -f -a "log" -d 'Show a goal\'s history, newest first: date, actor, action and subject of every commit that names the goal in its Steward-Goal trailer, or, when the store is not in a git repository (or has no such commits), the goal\'s events from the event log'
complete -c steward -n "__fish_steward_needs_command" -f -a "doctor" -d 'Check the configuration, every goal file (open and closed), the lock and leftovers; print each problem as path:line:col: message. Exit 0 when all is well, 1 otherwise. Nothing is changed, unless --fix'
complete -c steward -n "__fish_steward_needs_command" -f -a "config" -d 'Show every setting\'s effective value and its source: default, the file and line, an environment variable (STEWARD_<KEY>, dots as underscores), or a flag. Precedence: flags > environment > state/local/steward.yaml (this machine\'s own) > steward.yaml > defaults'
complete -c steward -n "__fish_steward_needs_command" -f -a "completions" -d 'Print the completion script for a shell. The scripts for bash, zsh and fish are also checked in under completions/'
complete -c steward -n "__fish_steward_needs_command" -f -a "man" -d 'Print a man page as roff: steward\'s, a command\'s, or the guide, reference, design or development page (`steward man add | man -l -`, `steward man guide | man -l -`), or install every page with --install. All pages are also checked in under man/'
complete -c steward -n "__fish_steward_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand init" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand init" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand init" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand init" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand init" -l git -d 'Also create a git repository (unless the root is already inside one), mark the event log `merge=union` in .gitattributes, turn git.commit on (not with --no-commit) and commit what init wrote'
complete -c steward -n "__fish_steward_using_subcommand init" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand init" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand init" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand init" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand init" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand init" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand add" -l title -d 'One line saying what the goal is' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l description -d 'The full goal statement (Markdown)' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l criterion -d 'An acceptance criterion; repeat for each' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l from-issue -d 'Make the goal from GitHub issue owner/repo#N (or its address)' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l priority -d 'critical, high, normal or low [default: defaults.priority]' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l verify -d 'A mechanical check TYPE:TARGET[@N] (types: manual, file_exists, command_exit_zero, http_ok, pr_merged, ci_green); @N ties it to criterion N' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l max-dispatches -d 'Dispatch budget; the goal blocks when it is used up' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l max-assessments -d 'Assessment budget; the goal blocks when it is used up' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l cooldown -d 'Minimum time between assessments, and between dispatches, such as 10m (0: none)' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l escalate-after -d 'Consecutive failures after which the goal blocks' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l max-iterations -d 'Hard bound: the goal fails once this many assessments were made' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l deadline -d 'Hard bound: the goal fails after this time (RFC 3339 or a date)' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l max-cost-usd -d 'Hard bound: the goal fails when its cost exceeds this many US dollars' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l tag -d 'A tag; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l owner -d 'Who to tell about the goal: a name, an address, a handle (never a secret); on update, "" removes it' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l origin -d 'Where the goal came from: a session, an issue URL; on update, "" removes it' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l constraint -d 'A constraint the work must respect; repeat for more (on update: replaces the list, "" clears it)' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l non-goal -d 'What the goal is not about; repeat for more (as --constraint)' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l risk -d 'A risk to keep in mind; repeat for more (as --constraint)' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l runs-on -d 'A machine its runs may start on: a machine\'s name or one of its machine.tags; repeat for more (as --constraint; none: any machine)' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l planning -d 'auto: dispatch plans the goal before working on it; off: works it without a plan; default: as dispatch.plan says' -r -f -a "auto\t''
off\t''
default\t''"
complete -c steward -n "__fish_steward_using_subcommand add" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand add" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand add" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand add" -l confirmed -d 'A human confirmed this goal (required for critical and high)'
complete -c steward -n "__fish_steward_using_subcommand add" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand add" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand add" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand add" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand add" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand list" -l status -d 'Only goals with this status; repeat for several' -r
complete -c steward -n "__fish_steward_using_subcommand list" -l priority -d 'Only goals with this priority' -r
complete -c steward -n "__fish_steward_using_subcommand list" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand list" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand list" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand list" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand list" -l all -d 'Include completed, failed and abandoned goals'
complete -c steward -n "__fish_steward_using_subcommand list" -l labels -d 'Print the labels of the open goals, one per line, from their file names alone (for shell completion: fast, reads no goal)'
complete -c steward -n "__fish_steward_using_subcommand list" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand list" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand list" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand list" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand list" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand show" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand show" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand show" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand show" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand show" -l exit-status -d 'Exit 0 when the goal is completed, 3 while it is open, 1 when it failed or was abandoned (for shell loops: until steward show G --exit-status -q; do ...; done)'
complete -c steward -n "__fish_steward_using_subcommand show" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand show" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand show" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand show" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand show" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand show" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand why" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand why" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand why" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand why" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand why" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand why" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand why" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand why" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand why" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand why" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand edit" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand edit" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand edit" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand edit" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand edit" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand edit" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand edit" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand edit" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand edit" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand update" -l title -d 'New title' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l description -d 'New description (the body text before the first `## ` heading)' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l priority -d 'New priority: critical, high, normal or low' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l add-criterion -d 'Add an acceptance criterion; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l remove-criterion -d 'Remove criterion N; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l check -d 'Mark criterion N met; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l uncheck -d 'Mark criterion N not met; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l blocker -d 'Replace the blockers with these; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l verify -d 'Add a check TYPE:TARGET[@N]; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l max-dispatches -d 'Dispatch budget; the goal blocks when it is used up' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l max-assessments -d 'Assessment budget; the goal blocks when it is used up' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l cooldown -d 'Minimum time between assessments, and between dispatches, such as 10m (0: none)' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l escalate-after -d 'Consecutive failures after which the goal blocks' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l max-iterations -d 'Hard bound: the goal fails once this many assessments were made' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l deadline -d 'Hard bound: the goal fails after this time (RFC 3339 or a date)' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l max-cost-usd -d 'Hard bound: the goal fails when its cost exceeds this many US dollars' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l label -d 'Rename the goal (its file is renamed too)' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l tag -d 'Add a tag; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l untag -d 'Remove a tag; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l note -d 'Add a note to the goal\'s history' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l owner -d 'Who to tell about the goal: a name, an address, a handle (never a secret); on update, "" removes it' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l origin -d 'Where the goal came from: a session, an issue URL; on update, "" removes it' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l constraint -d 'A constraint the work must respect; repeat for more (on update: replaces the list, "" clears it)' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l non-goal -d 'What the goal is not about; repeat for more (as --constraint)' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l risk -d 'A risk to keep in mind; repeat for more (as --constraint)' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l runs-on -d 'A machine its runs may start on: a machine\'s name or one of its machine.tags; repeat for more (as --constraint; none: any machine)' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l planning -d 'auto: dispatch plans the goal before working on it; off: works it without a plan; default: as dispatch.plan says' -r -f -a "auto\t''
off\t''
default\t''"
complete -c steward -n "__fish_steward_using_subcommand update" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand update" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand update" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand update" -l no-blockers -d 'Clear the blockers'
complete -c steward -n "__fish_steward_using_subcommand update" -l clear-checks -d 'Remove every check (before adding those given with --verify)'
complete -c steward -n "__fish_steward_using_subcommand update" -l confirmed -d 'A human confirmed the goal (needed to raise it to a priority that requires confirmation)'
complete -c steward -n "__fish_steward_using_subcommand update" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand update" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand update" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand update" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand update" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand pause" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand pause" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand pause" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand pause" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand pause" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand pause" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand pause" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand pause" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand pause" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand pause" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand resume" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand resume" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand resume" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand resume" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand resume" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand resume" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand resume" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand resume" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand resume" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand resume" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand confirm" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand confirm" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand confirm" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand confirm" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand confirm" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand confirm" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand confirm" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand confirm" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand confirm" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand confirm" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand abandon" -l reason -d 'Why it is abandoned' -r
complete -c steward -n "__fish_steward_using_subcommand abandon" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand abandon" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand abandon" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand abandon" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand abandon" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand abandon" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand abandon" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand abandon" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand abandon" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand abandon" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand cancel" -l reason -d 'Why it is abandoned' -r
complete -c steward -n "__fish_steward_using_subcommand cancel" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand cancel" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand cancel" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand cancel" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand cancel" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand cancel" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand cancel" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand cancel" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand cancel" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand cancel" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand unblock" -l reason -l note -d 'What the human did or decided: the next run is told (`--note` is the same)' -r
complete -c steward -n "__fish_steward_using_subcommand unblock" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand unblock" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand unblock" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand unblock" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand unblock" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand unblock" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand unblock" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand unblock" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand unblock" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand unblock" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand accept" -l note -d 'Why, for the history line' -r
complete -c steward -n "__fish_steward_using_subcommand accept" -l machine -d 'Trust the key machine NAME published in the store' -r
complete -c steward -n "__fish_steward_using_subcommand accept" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand accept" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand accept" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand accept" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand accept" -l all -d 'Every open goal changed or put in place outside steward, or holding command checks no person here accepted'
complete -c steward -n "__fish_steward_using_subcommand accept" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand accept" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand accept" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand accept" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand accept" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand accept" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand reset-budget" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand undo" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand undo" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand undo" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand undo" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand undo" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand undo" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand undo" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand undo" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand undo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand undo" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand delete" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand delete" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand delete" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand delete" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand delete" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand delete" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand delete" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand delete" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand delete" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand delete" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand assess" -l summary -d 'What the agent found, in a line' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -l from-json -d 'Read a structured update instead of the options: the last fenced `json` block holding `overseerUpdate` (goalId, workNodeId, status, summary, next, blockers, evidence) in FILE ("-": stdin); its status moves the plan node' -r -F
complete -c steward -n "__fish_steward_using_subcommand assess" -l next -d 'The next action' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -l blocker -d 'A current blocker; repeat for more (replaces the list)' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -l met -d 'Criterion N is met; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -l cost-usd -d 'What this step cost, in US dollars (added up)' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -l outcome -d 'How the work since the last assessment went: failed counts a consecutive failure, ok clears them' -r -f -a "ok\t''
failed\t''"
complete -c steward -n "__fish_steward_using_subcommand assess" -l wait-until -d 'Park the goal until TIME (CI running, a review pending): no runs, no block entries, no staleness until then' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -l dispatch-id -d 'The agent run this report belongs to: a dispatch with an id steward counted already is not counted again' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand assess" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand assess" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand assess" -l no-blockers -d 'Nothing blocks the goal any more'
complete -c steward -n "__fish_steward_using_subcommand assess" -l dispatched -d 'Work was dispatched (a subagent, a job) as part of this assessment'
complete -c steward -n "__fish_steward_using_subcommand assess" -l stuck -d 'The agent cannot go on without a human: block the goal'
complete -c steward -n "__fish_steward_using_subcommand assess" -l wait-for-check -d 'Park the goal until the result of its checks changes'
complete -c steward -n "__fish_steward_using_subcommand assess" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand assess" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand assess" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand assess" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand assess" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand assess" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand prompt" -l message -d 'The user\'s last message of this turn ("-" reads it from stdin)' -r
complete -c steward -n "__fish_steward_using_subcommand prompt" -l max-chars -d 'Cap on the characters printed [default: multi_goal_max_chars]' -r
complete -c steward -n "__fish_steward_using_subcommand prompt" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand prompt" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand prompt" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand prompt" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand prompt" -l heartbeat -d 'Treat this turn as a heartbeat'
complete -c steward -n "__fish_steward_using_subcommand prompt" -l exit-status -d 'Exit 0 when the output asks the agent to work, 3 when nothing is workable and a goal waits for a person, 5 when there is nothing to do now (for loops: see steward-design(7))'
complete -c steward -n "__fish_steward_using_subcommand prompt" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand prompt" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand prompt" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand prompt" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand prompt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand prompt" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand complete" -l reason -d 'Why the goal is done: the evidence' -r
complete -c steward -n "__fish_steward_using_subcommand complete" -l met -d 'Criterion N is met; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand complete" -l dispatch-id -d 'The agent run this belongs to' -r
complete -c steward -n "__fish_steward_using_subcommand complete" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand complete" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand complete" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand complete" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand complete" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand complete" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand complete" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand complete" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand complete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand complete" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand handoff" -l node -d 'The plan node the handoff is about' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l from-json -d 'Read the handoff as JSON from FILE ("-": stdin)' -r -F
complete -c steward -n "__fish_steward_using_subcommand handoff" -l summary -d 'What happened, in a line' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l state -d 'Where things stand now' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l decision -d 'A decision taken; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l rationale -d 'Why, for the decision in the same position; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l next -d 'The next action; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l question -d 'A question left open; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l blocker -d 'What blocks the work; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l file -d 'A file touched; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l command -d 'A command run; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l test -d 'A test run; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l commit-id -d 'A commit; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l pr -d 'A pull request; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l url -d 'A URL; repeat for more' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand handoff" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand handoff" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand handoff" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand handoff" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand handoff" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand handoff" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand handoff" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand handoff" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -f -a "prompt" -d 'Print the planner prompt for a goal: an agent answers it with the plan as JSON (at most 5 phases, 7 tasks per phase, 7 subtasks per task)'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -f -a "import" -d 'Validate the planner\'s JSON and write it under `## Plan`; nothing is written when it is not valid (every problem is printed with its JSON path, exit 2). A plan replacing another keeps the status of the nodes whose ids survive'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -f -a "repair-prompt" -d 'Print the repair prompt for a planner\'s answer that is not a valid plan: what is wrong, and the request for corrected JSON'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -f -a "show" -d 'Show the plan as a tree: each node\'s status, each parent\'s share done, and what is ready to start'
complete -c steward -n "__fish_steward_using_subcommand plan; and not __fish_seen_subcommand_from prompt import repair-prompt show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from prompt" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from import" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from repair-prompt" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "prompt" -d 'Print the planner prompt for a goal: an agent answers it with the plan as JSON (at most 5 phases, 7 tasks per phase, 7 subtasks per task)'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "import" -d 'Validate the planner\'s JSON and write it under `## Plan`; nothing is written when it is not valid (every problem is printed with its JSON path, exit 2). A plan replacing another keeps the status of the nodes whose ids survive'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "repair-prompt" -d 'Print the repair prompt for a planner\'s answer that is not a valid plan: what is wrong, and the request for corrected JSON'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show the plan as a tree: each node\'s status, each parent\'s share done, and what is ready to start'
complete -c steward -n "__fish_steward_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -a "start" -d 'Work on the node has begun (in progress)'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -a "done" -d 'The node\'s acceptance holds'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -a "block" -d 'The node cannot go on: say why'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -a "cancel" -d 'The node will not be done'
complete -c steward -n "__fish_steward_using_subcommand work; and not __fish_seen_subcommand_from start done block cancel help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -l reason -d 'Why, for the history' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -l reason -d 'Why, for the history' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from done" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -l reason -d 'What blocks it' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from block" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -l reason -d 'Why, for the history' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from cancel" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from help" -f -a "start" -d 'Work on the node has begun (in progress)'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from help" -f -a "done" -d 'The node\'s acceptance holds'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from help" -f -a "block" -d 'The node cannot go on: say why'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from help" -f -a "cancel" -d 'The node will not be done'
complete -c steward -n "__fish_steward_using_subcommand work; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand tick" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand tick" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand tick" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand tick" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand tick" -l dry-run -d 'Decide and print, write nothing, start nothing: file and HTTP checks run, command checks do not (a goal with one is not checked)'
complete -c steward -n "__fish_steward_using_subcommand tick" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand tick" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand tick" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand tick" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand tick" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand tick" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand status" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand status" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand status" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand status" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand status" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand status" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand status" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand status" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand status" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand status" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand forecast" -l by -d 'Name the goals that will not finish by this time: HH:MM (the next such time here), or RFC 3339' -r
complete -c steward -n "__fish_steward_using_subcommand forecast" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand forecast" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand forecast" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand forecast" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand forecast" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand forecast" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand forecast" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand forecast" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand forecast" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand forecast" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand sync" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand sync" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand sync" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand sync" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand sync" -l no-push -d 'Pull only'
complete -c steward -n "__fish_steward_using_subcommand sync" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand sync" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand sync" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand sync" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand sync" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand sync" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand resolve" -l file -d 'Keep the version in PATH (merged by hand from state/conflicts/)' -r -F
complete -c steward -n "__fish_steward_using_subcommand resolve" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand resolve" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand resolve" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand resolve" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand resolve" -l ours -d 'Keep this machine\'s version'
complete -c steward -n "__fish_steward_using_subcommand resolve" -l theirs -d 'Keep the remote\'s version'
complete -c steward -n "__fish_steward_using_subcommand resolve" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand resolve" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand resolve" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand resolve" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand resolve" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand resolve" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand digest" -l since -d 'RFC 3339, a date, or a duration back from now such as 24h' -r
complete -c steward -n "__fish_steward_using_subcommand digest" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand digest" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand digest" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand digest" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand digest" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand digest" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand digest" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand digest" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand digest" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand digest" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand report" -l html -d 'The directory to write index.html in' -r -F
complete -c steward -n "__fish_steward_using_subcommand report" -l since -d 'Show goals closed, events and runs since: RFC 3339, a date, or a duration back from now such as 24h' -r
complete -c steward -n "__fish_steward_using_subcommand report" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand report" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand report" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand report" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand report" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand report" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand report" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand report" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand report" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand report" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand dispatch" -l agent -d 'The agent profile [default: dispatch.agent]' -r
complete -c steward -n "__fish_steward_using_subcommand dispatch" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand dispatch" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand dispatch" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand dispatch" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand dispatch" -l dry-run -d 'Say what would start; start nothing'
complete -c steward -n "__fish_steward_using_subcommand dispatch" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand dispatch" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand dispatch" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand dispatch" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand dispatch" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand dispatch" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -l all -d 'Every run, not only those under way and of the last day'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -f -a "kill" -d 'Stop a run, with everything its agent started (a person\'s command)'
complete -c steward -n "__fish_steward_using_subcommand runs; and not __fish_seen_subcommand_from kill help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from kill" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from help" -f -a "kill" -d 'Stop a run, with everything its agent started (a person\'s command)'
complete -c steward -n "__fish_steward_using_subcommand runs; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -f -a "install" -d 'Write the entry and have the scheduler run it'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -f -a "status" -d 'Which schedulers run this store\'s pass, how often, and the last pass'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -f -a "remove" -d 'Take this store\'s entry out'
complete -c steward -n "__fish_steward_using_subcommand schedule; and not __fish_seen_subcommand_from install status remove help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l every -d 'How often: a period that divides an hour or a day (1m–30m, 1h–12h, 1d)' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l cron -d 'A line in your crontab, through the `crontab` command'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l systemd -d 'A systemd user timer and service, enabled with `systemctl --user`'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l launchd -d 'A launchd agent in ~/Library/LaunchAgents (macOS)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from install" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l cron -d 'A line in your crontab, through the `crontab` command'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l systemd -d 'A systemd user timer and service, enabled with `systemctl --user`'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l launchd -d 'A launchd agent in ~/Library/LaunchAgents (macOS)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "install" -d 'Write the entry and have the scheduler run it'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "status" -d 'Which schedulers run this store\'s pass, how often, and the last pass'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Take this store\'s entry out'
complete -c steward -n "__fish_steward_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -f -a "claude-code" -d 'Answer a Claude Code hook'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -f -a "codex" -d 'Answer a Codex CLI hook'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -f -a "install" -d 'Merge steward\'s hooks into a harness\'s settings (without touching other hooks; running it again changes nothing), or its MCP server into .mcp.json'
complete -c steward -n "__fish_steward_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex install help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from codex" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l user -d 'Install for the user rather than this directory (claude-code)'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l dry-run -d 'Print the file as it would be; write nothing'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l sandbox -d 'Also keep the agent\'s own tools out of this store\'s state/ and steward.yaml (and the machine key): claude-code gets permission rules and its sandbox (bubblewrap and socat on Linux), with `steward …` excluded from it; codex gets the rule that runs `steward …` outside its sandbox, and the permission profile to add to its config.toml is printed'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from install" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "claude-code" -d 'Answer a Claude Code hook'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "codex" -d 'Answer a Codex CLI hook'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "install" -d 'Merge steward\'s hooks into a harness\'s settings (without touching other hooks; running it again changes nothing), or its MCP server into .mcp.json'
complete -c steward -n "__fish_steward_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand mcp" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand mcp" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand mcp" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand mcp" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand mcp" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand mcp" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand mcp" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand mcp" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand merge-driver" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand run-agent" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand run-agent" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand run-agent" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand run-agent" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand run-agent" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand run-agent" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand run-agent" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand run-agent" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand run-agent" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand run-agent" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -f -a "spawned" -d 'A subagent was spawned: it now owes a result'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -f -a "ended" -d 'A subagent ended: ok (its result arrived), error, timeout or killed'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -f -a "deliver" -d 'Mark an obligation delivered (its result reached the human) or dismissed'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -f -a "dismiss" -d 'Mark an obligation delivered (its result reached the human) or dismissed'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -f -a "resolve" -d 'Resolve the obligations a message names with [DELIVER:obl-…] and [DISMISS:obl-…] tags (the harness passes every outgoing message)'
complete -c steward -n "__fish_steward_using_subcommand task; and not __fish_seen_subcommand_from spawned ended deliver dismiss resolve help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l label -d 'The task\'s label (a-z 0-9 - _ / . :)' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l goal -d 'The goal it serves (a label, an id, or an id prefix)' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l agent -d 'The subagent\'s name' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l session -d 'The harness\'s session key for the subagent' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l pid -d 'The subagent\'s process id; the watchdog fails the task when it is gone' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l timeout -d 'How long it may run [default: obligations.default_timeout]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l summary -d 'What it was asked to do (empty: nothing said)' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from spawned" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l label -d 'The task\'s label' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l session -d 'The session key given at spawn (wins over --label)' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l outcome -d 'How it ended' -r -f -a "ok\t''
error\t''
timeout\t''
killed\t''"
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l detail -d 'What it said, in a line (empty: nothing said)' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from ended" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from deliver" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from dismiss" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -l message -d 'The outgoing message ("-" reads it from stdin)' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from resolve" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "spawned" -d 'A subagent was spawned: it now owes a result'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "ended" -d 'A subagent ended: ok (its result arrived), error, timeout or killed'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "deliver" -d 'Mark an obligation delivered (its result reached the human) or dismissed'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "dismiss" -d 'Mark an obligation delivered (its result reached the human) or dismissed'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "resolve" -d 'Resolve the obligations a message names with [DELIVER:obl-…] and [DISMISS:obl-…] tags (the harness passes every outgoing message)'
complete -c steward -n "__fish_steward_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand tasks" -l goal -d 'Only those linked to this goal' -r
complete -c steward -n "__fish_steward_using_subcommand tasks" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand tasks" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand tasks" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand tasks" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand tasks" -l all -d 'Include delivered and dismissed obligations'
complete -c steward -n "__fish_steward_using_subcommand tasks" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand tasks" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand tasks" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand tasks" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand tasks" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand tasks" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand budget" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand budget" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand budget" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand budget" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand budget" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand budget" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand budget" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand budget" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand budget" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand budget" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand replies" -l since -d 'How far back (a duration such as 24h or 7d)' -r
complete -c steward -n "__fish_steward_using_subcommand replies" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand replies" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand replies" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand replies" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand replies" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand replies" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand replies" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand replies" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand replies" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand replies" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand fleet" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand fleet" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand fleet" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand fleet" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand fleet" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand fleet" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand fleet" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand fleet" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand fleet" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand fleet" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand intake" -l label -d 'The issues\' label' -r
complete -c steward -n "__fish_steward_using_subcommand intake" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand intake" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand intake" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand intake" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand intake" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand intake" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand intake" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand intake" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand intake" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand intake" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand mirror" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand mirror" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand mirror" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand mirror" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand mirror" -l check -d 'Exit 1 when the block differs from what steward would write'
complete -c steward -n "__fish_steward_using_subcommand mirror" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand mirror" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand mirror" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand mirror" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand mirror" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand mirror" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand audit" -l goal -d 'Only events of this goal (a label, an id, or an id prefix)' -r
complete -c steward -n "__fish_steward_using_subcommand audit" -l since -d 'Only events at or after this time (RFC 3339, a date, or a duration back from now such as 24h)' -r
complete -c steward -n "__fish_steward_using_subcommand audit" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand audit" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand audit" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand audit" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand audit" -l redact -d 'Drop free text'
complete -c steward -n "__fish_steward_using_subcommand audit" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand audit" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand audit" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand audit" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand audit" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand log" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand log" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand log" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand log" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand log" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand log" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand log" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand log" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand log" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand log" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand doctor" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand doctor" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand doctor" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand doctor" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand doctor" -l fix -d 'Repair what git needs to merge a shared store: steward\'s .gitattributes lines and its merge driver in .git/config (a person\'s command)'
complete -c steward -n "__fish_steward_using_subcommand doctor" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand doctor" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand doctor" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand doctor" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -f -a "accept" -d 'Accept what the configuration files say now (after a pull, or an edit), showing what changed'
complete -c steward -n "__fish_steward_using_subcommand config; and not __fish_seen_subcommand_from accept help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from accept" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "accept" -d 'Accept what the configuration files say now (after a pull, or an edit), showing what changed'
complete -c steward -n "__fish_steward_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand completions" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand completions" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand completions" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand completions" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand completions" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand completions" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand completions" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand completions" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand completions" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand completions" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand man" -l install -d 'Write every page where man finds them when DIR is on its path (the directories are created if missing): the commands\' to DIR/man1/, the reference to DIR/man5/, the guide, design and development to DIR/man7/. DIR is ~/.cargo/share/man for a binary in ~/.cargo/bin, /usr/local/share/man system-wide' -r -F
complete -c steward -n "__fish_steward_using_subcommand man" -s C -l root -d 'Use DIR as the store root instead of searching upwards from the working directory' -r -F
complete -c steward -n "__fish_steward_using_subcommand man" -l color -d 'When to colour output; NO_COLOR turns off `auto`' -r -f -a "auto\t''
always\t''
never\t''"
complete -c steward -n "__fish_steward_using_subcommand man" -l actor -d 'Who is acting: user, agent or steward [env: STEWARD_ACTOR]' -r
complete -c steward -n "__fish_steward_using_subcommand man" -l lock-timeout -d 'How long to wait for another steward run\'s lock before exiting with 75 [default: 10s] [env: STEWARD_LOCK_TIMEOUT]' -r
complete -c steward -n "__fish_steward_using_subcommand man" -l json -d 'Print one JSON document (schema_version 1) instead of text'
complete -c steward -n "__fish_steward_using_subcommand man" -s q -l quiet -d 'Print nothing on success except what was asked for'
complete -c steward -n "__fish_steward_using_subcommand man" -l commit -d 'Commit every change to git (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand man" -l no-commit -d 'Do not commit (overrides git.commit)'
complete -c steward -n "__fish_steward_using_subcommand man" -s h -l help -d 'Print help'
complete -c steward -n "__fish_steward_using_subcommand man" -s V -l version -d 'Print version'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "init" -d 'Create steward.yaml (every key, commented, with its default) and state/goals/ in the working directory, or in the root given with -C. Running it again creates only what is missing'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "add" -d 'Register a goal: what must be achieved and how to tell it is done'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "list" -d 'List goals: open ones by default, sorted by priority then label. Each line: label, status, priority, criteria met/total, age (since the goal was created: 45s, 12m, 30h, 9d, 6w, 2y) and title'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "show" -d 'Show one goal: criteria, checks, budget, bounds, progress, blockers and recent history'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "why" -d 'Say every reason the goal is not being worked now: its status, a wait, its cooldown or a follow-up\'s backoff (until when), a run under way, the hourly run window, the day\'s spend cap, `max_parallel`, its dispatch budget, a plan with no node ready, dispatch off. Nothing held: the next `tick` starts a run. Exit 0 either way'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "edit" -d 'Open a goal in $VISUAL or $EDITOR (else vi) and validate it when the editor exits'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "update" -d 'Change a goal\'s title, description, priority, criteria, blockers, checks, budget, bounds, label or tags, or add a note to its history'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "pause" -d 'Pause a goal: the watchdog and the stewardship block leave it alone until `steward resume`'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "resume" -d 'Resume a paused goal: it goes back to the status it was paused from (active, or blocked when it was waiting for a person) and the watchdog looks at it again on its next pass'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "confirm" -d 'Confirm a goal: unconfirmed goals are not offered to the agent'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "abandon" -d 'Abandon a goal for good: it becomes terminal, stops being worked on, and its file moves to the closed goals'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "unblock" -d 'Unblock a goal a human has looked at: it becomes active, its escalation, consecutive failures and circuit-breaker streaks are cleared, and the runs before now no longer count against it: the next `tick` starts fresh work (a planned goal is planned again first), told what you said. A goal blocked because its budget is used up needs `steward reset-budget` (or a bigger budget) instead'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "accept" -d 'Accept a goal as it now is, after looking at what changed outside steward (a hand edit, a file put in place, a plain `git pull`): the goal stops waiting for a person and agents may work on it again. For a goal whose file was removed outside steward, lets it go and frees its label. A person\'s other commands on a goal accept it too; this one changes nothing else'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "reset-budget" -d 'Reset a goal\'s dispatch and assessment counters. A goal blocked by its budget becomes active. Hard bounds still count every assessment ever made (progress.iterations), so a reset never lifts them'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "undo" -d 'Take back the last change steward made to a goal: the goal file becomes, byte for byte, what that command found, stamped with updated_at and a history line `undone`, and an event records it (the undone change stays in the event log)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "delete" -d 'Remove a goal registered by mistake: its file is deleted, a `deleted` event joins its events in the event log (which keeps them all), and the mirror forgets it. `steward undo LABEL` brings it back while nothing else changed it since. Only a person may delete; to stop work on a real goal, `abandon` it instead (it stays readable, with its reason)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "assess" -d 'Record one assessment of a goal: what the agent found, what comes next, and what it did'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "prompt" -d 'Print the stewardship block for the agent\'s turn'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "complete" -d 'Judge a goal done and close it: run every mechanical check now and require each to pass and every acceptance criterion to be met (criteria given with --met and those of passing checks count). Otherwise refuse with exit 4, say what is missing, and change nothing'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "handoff" -d 'Record what this session leaves for the next: where things stand, what was decided and why, what to do next, what is open, what blocks, and the evidence. The latest handoff is shown by `show`, in the stewardship block and in the next run\'s instruction, so a fresh session starts where this one stopped; every handoff is in the event log. Give it as JSON (--from-json: summary, current_state, decisions[{decision, rationale}], next_actions[], open_questions[], blockers[], evidence{files, commands, tests, commits, prs, urls}) or with the options'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "plan" -d 'Break a goal into phases, tasks and subtasks that an agent works through: the planner prompt, the planner\'s JSON imported, the plan shown'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "work" -d 'Move one node of a goal\'s plan: start it, mark it done, block it with a reason, or cancel it. Its line in the goal file changes and nothing else; a task is done when its subtasks are, a phase when its tasks are, and when every phase is done the goal goes to verifying (the judge still decides: `steward complete`)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "tick" -d 'Run one watchdog pass over the open goals that are not paused: hard bounds fail a goal, budgets and repeated failures block it, idle goals stall, passing checks tick their criteria and a goal whose checks all pass with every criterion met becomes `verifying`. Then refresh the mirror'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "status" -d 'One screen: counts by status, every goal that waits for a person with the command to run, goals parked and what they wait for, runs under way, goals that moved in the last 24 hours, spend against budgets, when tick last ran, and each open goal with a bar of criteria met and of budget used. Exit 0 whatever it reports (1 on error)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "forecast" -d 'Say, from this store\'s own runs, how many more runs each workable goal likely needs, what they cost and when the last one ends at the current limits (dispatch.max_parallel, the hourly dispatches, the day\'s spend cap, each goal\'s cooldown), with the basis of each guess: the goal\'s own runs, the store\'s, or unknown. Also when the day\'s spend cap is reached and which agents a usage limit holds. A forecast is not a promise: it assumes the next runs go as the past ones did. --json prints {schema_version, at, goals, cap_reached, cost_usd, limited}'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "sync" -d 'Share the store through its git remote (git.remote): commit what steward owns, pull, render the mirror\'s block again, push, and pull again when the push is rejected. Two machines that changed the same goal stop the pull: nothing is merged or lost, both versions are kept under state/conflicts/, and sync exits 3 naming the files. Goals changed outside steward are recorded and held for a person before the commit (exit 3); goals the merge changed are taken as steward\'s: the remote is trusted'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "resolve" -d 'Choose which version of a file both machines changed is kept, after `steward sync` stopped on a conflict: ours, theirs, or a file you merged by hand. Once every conflicted file has a choice, the merge is made again with them and committed, the chosen goals are taken as yours, and the copies under state/conflicts/ are removed; `steward sync` then pushes it. A person\'s command'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "digest" -d 'What happened since a time (default: the last 24 hours): goals completed, with what the judge\'s receipt rests on; goals failed, abandoned and blocked, with why; goals waiting for a person (a merge, a review, a judgment); criteria met, and a failing check that says otherwise; agent runs and what they cost. Short enough to read on a phone. Exit 0 whatever it reports (1 on error)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "report" -d 'Write one self-contained HTML page to DIR/index.html (DIR is created): the open goals by status with bars for criteria met and budget used, their plans, what waits for a person with the command to run, goals closed, events and agent runs since a time, and spend. No script, nothing fetched from anywhere; it reads well without its style and on a phone. Cron can make it and a web server publish DIR. Exit 0 (1 on error)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "dispatch" -d 'Start one agent run for a goal now, inside every budget (the goal\'s dispatches, the hourly window, dispatch.max_parallel, the daily spend cap). The run is supervised like the ones tick starts: see `steward runs`'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "runs" -d 'List the agent runs steward started: the ones under way and the recent ones (--all: every one), with agent, age, outcome and cost'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "schedule" -d 'Have cron, a systemd user timer or launchd run this store\'s watchdog pass (`steward -C ROOT tick -q`) every few minutes'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "hook" -d 'Answer an agent harness\'s hook (the JSON it sends on stdin), or install steward\'s hooks into a harness\'s settings'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "mcp" -d 'Serve the Model Context Protocol on stdio: the agent commands as tools, called as actor agent (register it with `steward hook install mcp`)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "merge-driver" -d 'Git\'s merge driver for steward\'s files (registered by `init --git`; not for people)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "run-agent" -d 'Supervise one recorded agent run to its end (started by tick and dispatch; not for people)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "task" -d 'Track what spawned subagents owe: results to deliver, failures to report'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "tasks" -d 'List obligations: pending ones by default (running, arrived, failed, timed out, cancelled), every one with --all'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "budget" -d 'Show dispatches and assessments against each open goal\'s budget, iterations, cost and deadline against its bounds, and the dispatches of the last hour against global_limits.max_dispatches_per_hour (counted from the event log)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "replies" -d 'List the answers notifications offered (steward-guide(7), "ANSWERING FROM THE PHONE"): each one\'s act, goal and expiry, and whether it is still open, was applied, refused, or expired; then answers refused that no offer explains (forged, edited, or another machine\'s)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "fleet" -d 'List the machines that share this store (steward-guide(7), "A FLEET OF MACHINES"): each one\'s last pass, its free run slots, its agents (usable here, limited until when) and what it runs now. A machine with no pass for fleet.stale_after comes first, marked stale; a record this machine cannot verify is marked so and counts for nothing'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "intake" -d 'Make a goal of every open issue of REPO labelled LABEL that no goal has yet (a person\'s command; run it again and it takes only new ones): each as `add --from-issue` makes it. An issue a goal already has (open or closed, by its origin) is left alone; one that cannot become a goal is said and the others go on (exit 1)'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "mirror" -d 'Regenerate steward\'s block in ACTIVE-TASKS.md (mirror.path) from every open goal. Everything outside the block stays as it is; the file and the block are created when missing. With --check, change nothing and exit 1 when the block is stale. --json prints {"schema_version":1, "path", "enabled", "current"} with --check, {…, "updated", "open_goals"} without'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "audit" -d 'Print the event log as JSON lines {ts, goal_id, label, actor, action, from, to, detail}, oldest first'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "log" -d 'Show a goal\'s history, newest first: date, actor, action and subject of every commit that names the goal in its Steward-Goal trailer, or, when the store is not in a git repository (or has no such commits), the goal\'s events from the event log'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "doctor" -d 'Check the configuration, every goal file (open and closed), the lock and leftovers; print each problem as path:line:col: message. Exit 0 when all is well, 1 otherwise. Nothing is changed, unless --fix'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "config" -d 'Show every setting\'s effective value and its source: default, the file and line, an environment variable (STEWARD_<KEY>, dots as underscores), or a flag. Precedence: flags > environment > state/local/steward.yaml (this machine\'s own) > steward.yaml > defaults'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "completions" -d 'Print the completion script for a shell. The scripts for bash, zsh and fish are also checked in under completions/'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "man" -d 'Print a man page as roff: steward\'s, a command\'s, or the guide, reference, design or development page (`steward man add | man -l -`, `steward man guide | man -l -`), or install every page with --install. All pages are also checked in under man/'
complete -c steward -n "__fish_steward_using_subcommand help; and not __fish_seen_subcommand_from init add list show why edit update pause resume confirm abandon unblock accept reset-budget undo delete assess prompt complete handoff plan work tick status forecast sync resolve digest report dispatch runs schedule hook mcp merge-driver run-agent task tasks budget replies fleet intake mirror audit log doctor config completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "prompt" -d 'Print the planner prompt for a goal: an agent answers it with the plan as JSON (at most 5 phases, 7 tasks per phase, 7 subtasks per task)'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "import" -d 'Validate the planner\'s JSON and write it under `## Plan`; nothing is written when it is not valid (every problem is printed with its JSON path, exit 2). A plan replacing another keeps the status of the nodes whose ids survive'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "repair-prompt" -d 'Print the repair prompt for a planner\'s answer that is not a valid plan: what is wrong, and the request for corrected JSON'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "show" -d 'Show the plan as a tree: each node\'s status, each parent\'s share done, and what is ready to start'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from work" -f -a "start" -d 'Work on the node has begun (in progress)'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from work" -f -a "done" -d 'The node\'s acceptance holds'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from work" -f -a "block" -d 'The node cannot go on: say why'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from work" -f -a "cancel" -d 'The node will not be done'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from runs" -f -a "kill" -d 'Stop a run, with everything its agent started (a person\'s command)'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "install" -d 'Write the entry and have the scheduler run it'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "status" -d 'Which schedulers run this store\'s pass, how often, and the last pass'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "remove" -d 'Take this store\'s entry out'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "claude-code" -d 'Answer a Claude Code hook'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "codex" -d 'Answer a Codex CLI hook'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "install" -d 'Merge steward\'s hooks into a harness\'s settings (without touching other hooks; running it again changes nothing), or its MCP server into .mcp.json'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "spawned" -d 'A subagent was spawned: it now owes a result'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "ended" -d 'A subagent ended: ok (its result arrived), error, timeout or killed'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "deliver" -d 'Mark an obligation delivered (its result reached the human) or dismissed'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "dismiss" -d 'Mark an obligation delivered (its result reached the human) or dismissed'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "resolve" -d 'Resolve the obligations a message names with [DELIVER:obl-…] and [DISMISS:obl-…] tags (the harness passes every outgoing message)'
complete -c steward -n "__fish_steward_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "accept" -d 'Accept what the configuration files say now (after a pull, or an edit), showing what changed'
function __fish_steward_goals
    set -l tokens (commandline -opc)
    set -l root
    for i in (seq (count $tokens))
        if contains -- $tokens[$i] -C --root; and test $i -lt (count $tokens)
            set root -C $tokens[(math $i + 1)]
        end
    end
    steward $root list --labels 2>/dev/null
end
complete -c steward -n "__fish_seen_subcommand_from show why edit update pause resume confirm abandon cancel unblock reset-budget undo delete assess complete handoff work resolve dispatch log" -f -a "(__fish_steward_goals)" -d 'goal'
