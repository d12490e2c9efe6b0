//! The argument-order runs (G = global flag, v = value, C = command path,
//! L = local args, P = positional), each waiting for every destructive run.

use std::collections::BTreeSet;

use super::kind::{
    terminal_sandbox, OrderRun, Placement, RunKind, RunRole, Subject, HALLUCINATED, NARROW,
    NARROW_TERMINAL,
};
use super::{Planner, RunIndex};
use crate::exec::{RunSpec, StdinMode};
use crate::profile::ArgumentOrder;

impl Planner<'_> {
    /// The runs made from `argument_order`: the placements (after every destructive
    /// run, since they compare data), the narrow terminal run, and the made-up
    /// positionals.
    pub(super) fn argument_order(
        &mut self,
        order: &ArgumentOrder,
        needs: &BTreeSet<RunKind>,
        destructive_runs: &[RunIndex],
    ) {
        if needs.contains(&RunKind::ArgumentOrder) {
            self.placements(order, destructive_runs);
        }
        let (g, c, l) = (&order.global_flag, &order.command_path, &order.local_args);
        if needs.contains(&RunKind::NarrowTerminal) {
            let argv = [&[g.clone(), order.value.clone()][..], c, l].concat();
            let (name, value) = NARROW;
            let spec = RunSpec {
                env_set: vec![(name.to_string(), value.to_string())],
                output: NARROW_TERMINAL,
                sandbox: Some(terminal_sandbox()),
                ..self.spec(argv)
            };
            let role = RunRole {
                kind: RunKind::NarrowTerminal,
                subject: Subject::Order(OrderRun::Placement {
                    placement: Placement::BeforePath,
                    alternate: false,
                }),
            };
            let label = format!(
                "argument_order {g} {} {} ({name}={value}, stdout on a 40x24 terminal)",
                order.value,
                Placement::BeforePath.describe()
            );
            self.add(label, role, spec, destructive_runs.to_vec(), None);
        }
        if let (true, Some(p)) = (needs.contains(&RunKind::Hallucinated), &order.positional) {
            for (form, (before, after)) in HALLUCINATED.into_iter().enumerate() {
                let made_up = format!("{before}{p}{after}");
                let argv = [c, &[made_up.clone()][..]].concat();
                let spec = RunSpec {
                    stdin: StdinMode::Closed,
                    ..self.shaped(argv, RunKind::Isolated)
                };
                let role = RunRole {
                    kind: RunKind::Hallucinated,
                    subject: Subject::Order(OrderRun::Hallucinated(form)),
                };
                let label = format!("made-up positional {made_up} (isolated)");
                self.add(label, role, spec, vec![], None);
            }
        }
    }

    fn placements(&mut self, order: &ArgumentOrder, destructive_runs: &[RunIndex]) {
        let (g, c, l) = (&order.global_flag, &order.command_path, &order.local_args);
        let add = |planner: &mut Self, label: String, kind: OrderRun, argv: Vec<String>| {
            let spec = planner.spec(argv);
            let role = RunRole {
                kind: RunKind::ArgumentOrder,
                subject: Subject::Order(kind),
            };
            planner.add(label, role, spec, destructive_runs.to_vec(), None);
        };
        for alternate in [false, true] {
            let v = if alternate {
                &order.alternate_value
            } else {
                &order.value
            };
            let gv = [g.clone(), v.clone()];
            for placement in Placement::ALL {
                let argv = match placement {
                    Placement::BeforePath => [&gv[..], c, l].concat(),
                    Placement::BetweenPathAndLocal => [c, &gv[..], l].concat(),
                    Placement::AfterLocal => [c, l, &gv[..]].concat(),
                };
                let label = format!("argument_order {g} {v} {}", placement.describe());
                let kind = OrderRun::Placement {
                    placement,
                    alternate,
                };
                add(self, label, kind, argv);
            }
        }
        let conflict = [
            &[g.clone(), order.value.clone()][..],
            c,
            l,
            &[g.clone(), order.alternate_value.clone()],
        ]
        .concat();
        add(
            self,
            format!("argument_order conflicting {g}"),
            OrderRun::Conflict,
            conflict,
        );
        if let Some(p) = &order.positional {
            let p = [p.clone()];
            for (kind, argv) in [
                (OrderRun::LocalAfterPositional, [c, &p[..], l].concat()),
                (OrderRun::LocalBeforePositional, [c, l, &p[..]].concat()),
                (OrderRun::PositionalOnly, [c, &p[..]].concat()),
            ] {
                add(
                    self,
                    format!("argument_order {}", kind.describe()),
                    kind,
                    argv,
                );
            }
        }
    }
}
