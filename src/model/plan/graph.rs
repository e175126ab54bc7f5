//! The structure rules of a plan, on its bare skeleton (ids, parents,
//! dependencies): ids are unique; a dependency names another node that is
//! not the node's own ancestor or descendant; no chain of dependencies comes
//! back to where it started. Both the `## Plan` reader and the planner's
//! JSON are checked here.

use super::Plan;

/// What the structure rules look at, in file order.
#[derive(Debug, Default)]
pub struct Skeleton<'a> {
    pub ids: Vec<&'a str>,
    pub parents: Vec<Option<usize>>,
    pub after: Vec<Vec<&'a str>>,
}

impl<'a> Skeleton<'a> {
    pub fn of(plan: &'a Plan) -> Skeleton<'a> {
        Skeleton {
            ids: plan.nodes.iter().map(|n| n.id.as_str()).collect(),
            parents: plan.nodes.iter().map(|n| n.parent).collect(),
            after: plan
                .nodes
                .iter()
                .map(|n| n.after.iter().map(String::as_str).collect())
                .collect(),
        }
    }

    pub fn push(&mut self, id: &'a str, parent: Option<usize>, after: Vec<&'a str>) {
        self.ids.push(id);
        self.parents.push(parent);
        self.after.push(after);
    }

    /// The first id used twice, in file order: the node where it is first,
    /// and where it is again.
    pub fn first_duplicate(&self) -> Option<(usize, usize)> {
        let index = Index::new(&self.ids);
        let mut found: Option<(usize, usize)> = None;
        for run in index.sorted.chunk_by(|a, b| a.0 == b.0) {
            if let [first, again, ..] = run {
                // Sorted by id, then by position: file order within the run.
                if found.is_none_or(|(_, best)| again.1 < best) {
                    found = Some((first.1, again.1));
                }
            }
        }
        found
    }

    /// What is wrong with the dependencies: for each mistake, the node, the
    /// position of the dependency in its `after`, and why.
    pub fn dependency_problems(&self) -> Vec<(usize, usize, String)> {
        let mut problems = Vec::new();
        if self.after.iter().all(Vec::is_empty) {
            return problems;
        }
        let index = Index::new(&self.ids);
        let holds = |outer: usize, inner: usize| {
            let mut current = self.parents[inner];
            while let Some(i) = current {
                if i == outer {
                    return true;
                }
                current = self.parents[i];
            }
            false
        };
        for (node, deps) in self.after.iter().enumerate() {
            let id = self.ids[node];
            for (position, dep) in deps.iter().enumerate() {
                let why = match index.get(dep) {
                    None => format!("`{dep}` is not a node of this plan"),
                    Some(d) if d == node => format!("{dep} cannot wait on itself"),
                    Some(d) if holds(d, node) => {
                        format!("{id} cannot wait on {dep}, which holds it")
                    }
                    Some(d) if holds(node, d) => {
                        format!("{id} cannot wait on {dep}, which it holds")
                    }
                    Some(_) => continue,
                };
                problems.push((node, position, why));
            }
        }
        if problems.is_empty()
            && let Some((node, position, cycle)) = self.cycle(&index)
        {
            problems.push((
                node,
                position,
                format!("dependency cycle: {}", cycle.join(" → ")),
            ));
        }
        problems
    }

    /// A chain of dependencies that comes back to its start: the node it
    /// starts from, the position of its first dependency, and the ids.
    fn cycle(&self, index: &Index<'a>) -> Option<(usize, usize, Vec<&'a str>)> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Finished,
        }
        struct Walk<'s, 'a> {
            skeleton: &'s Skeleton<'a>,
            index: &'s Index<'a>,
            marks: Vec<Mark>,
            path: Vec<usize>,
        }
        impl Walk<'_, '_> {
            fn visit(&mut self, node: usize) -> Option<Vec<usize>> {
                self.marks[node] = Mark::Open;
                self.path.push(node);
                for dep in &self.skeleton.after[node] {
                    let Some(next) = self.index.get(dep) else {
                        continue;
                    };
                    match self.marks[next] {
                        Mark::Open => {
                            let start = self.path.iter().position(|&i| i == next).unwrap_or(0);
                            let mut cycle = self.path[start..].to_vec();
                            cycle.push(next);
                            return Some(cycle);
                        }
                        Mark::New => {
                            if let Some(cycle) = self.visit(next) {
                                return Some(cycle);
                            }
                        }
                        Mark::Finished => {}
                    }
                }
                self.path.pop();
                self.marks[node] = Mark::Finished;
                None
            }
        }
        let mut walk = Walk {
            skeleton: self,
            index,
            marks: vec![Mark::New; self.ids.len()],
            path: Vec::new(),
        };
        for start in 0..self.ids.len() {
            if walk.marks[start] != Mark::New {
                continue;
            }
            if let Some(cycle) = walk.visit(start) {
                let first = cycle[0];
                let position = self.after[first]
                    .iter()
                    .position(|d| index.get(d) == Some(cycle[1]))
                    .unwrap_or(0);
                let ids = cycle.iter().map(|&i| self.ids[i]).collect();
                return Some((first, position, ids));
            }
        }
        None
    }
}

/// Node ids to their position, sorted once for every lookup.
struct Index<'p> {
    sorted: Vec<(&'p str, usize)>,
}

impl<'p> Index<'p> {
    fn new(ids: &[&'p str]) -> Index<'p> {
        let mut sorted: Vec<(&str, usize)> = ids.iter().copied().zip(0..).collect();
        sorted.sort_unstable();
        Index { sorted }
    }

    fn get(&self, id: &str) -> Option<usize> {
        self.sorted
            .binary_search_by(|(probe, _)| (*probe).cmp(id))
            .ok()
            .map(|at| self.sorted[at].1)
    }
}
