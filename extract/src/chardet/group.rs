//! `CharSetGroupProber`, read piece by piece: every member still running
//! reads every piece, and at the end the members settle in the order the
//! single feed fed them, so the first that claims the input wins, as when
//! the members after it were never fed.
//!
//! Derived from chardet 5.2.0 (LGPL-2.1-or-later, see `LICENSE` here).

use super::{Prober, State};

/// `CharSetGroupProber`: its members, fed in order until one claims the input.
pub(super) struct Group {
    probers: Vec<Box<dyn Prober>>,
    active: Vec<bool>,
    state: State,
    best: Option<usize>,
}

impl Group {
    pub(super) fn new(probers: Vec<Box<dyn Prober>>) -> Self {
        let active = vec![true; probers.len()];
        Group {
            probers,
            active,
            state: State::Detecting,
            best: None,
        }
    }

    /// The best active member and its confidence (the first of equals).
    fn best_guess(&self) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (i, prober) in self.probers.iter().enumerate() {
            if !self.active.get(i).copied().unwrap_or(false) {
                continue;
            }
            let confidence = prober.confidence();
            if best.map_or(0.0, |(_, c)| c) < confidence {
                best = Some((i, confidence));
            }
        }
        best
    }
}

impl Prober for Group {
    fn feed(&mut self, bytes: &[u8]) {
        for prober in &mut self.probers {
            if !prober.stopped() {
                prober.feed(bytes);
            }
        }
    }

    fn stopped(&self) -> bool {
        self.probers.iter().all(|p| p.stopped())
    }

    fn end(&mut self) {
        for prober in &mut self.probers {
            prober.end();
        }
    }

    /// The single feed's member loop over the members' settled states.
    fn settle(&mut self) -> State {
        let mut active_num = self.probers.len();
        for (i, prober) in self.probers.iter_mut().enumerate() {
            match prober.settle() {
                State::FoundIt => {
                    self.best = Some(i);
                    self.state = State::FoundIt;
                    return self.state;
                }
                State::NotMe => {
                    if let Some(a) = self.active.get_mut(i) {
                        *a = false;
                    }
                    active_num -= 1;
                    if active_num == 0 {
                        self.state = State::NotMe;
                        return self.state;
                    }
                }
                State::Detecting => {}
            }
        }
        self.state
    }

    fn confidence(&self) -> f64 {
        match self.state {
            State::FoundIt => 0.99,
            State::NotMe => 0.01,
            State::Detecting => self.best_guess().map_or(0.0, |(_, c)| c),
        }
    }

    fn charset_name(&self) -> Option<&'static str> {
        let best = match self.state {
            State::FoundIt => self.best,
            // NOT_ME keeps no guess of its own: the reference recomputes over active members (none)
            State::NotMe => None,
            State::Detecting => self.best_guess().map(|(i, _)| i),
        };
        self.probers.get(best?)?.charset_name()
    }

    #[cfg(test)]
    fn report(&self, out: &mut Vec<(Option<&'static str>, f64)>) {
        for prober in &self.probers {
            prober.report(out);
        }
    }
}
