//! The argument-order runs (G = global flag, v = value, C = command path,
//! L = local args, P = positional), each waiting for every destructive run.

use super::kind::{OrderRun, Placement, RunKind, RunRole, Subject};
use super::{Planner, RunIndex};
use crate::profile::ArgumentOrder;

impl Planner<'_> {
    pub(super) fn argument_order(&mut self, order: &ArgumentOrder, destructive_runs: &[RunIndex]) {
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
