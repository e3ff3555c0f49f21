#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Check a softhca trace: every completion event walks the whole path.

    tracecheck.py <trace> <eqs> [min-events-per-cq]

<trace> is /sys/kernel/tracing/trace with the softhca and softhca_hw events
enabled, with the "counter" trace clock (so the merged CPUs' buffers
are in recording order), while an event-driven program ran
(ibv_rc_pingpong -e); <eqs> is
debugfs softhca/<dev>/eqs (which EQ is on which vector). For each call of
a user CQ's comp_handler (softhca_cq_comp) the trace must hold, in order:

  softhca_hw_cqe        a CQE for it, the last before the event
  softhca_hw_cq_arm     the card saw the arm (sequence number s) of that CQ:
                        for an event raised by a CQE, seen at that CQE
                        (the card reads the arm word after writing it) or
                        earlier; for one raised by the arm, seen at the CQ
                        doorbell, after the CQE that waited (at or past
                        the arm's consumer index; a CQE another CPU
                        writes may be listed between the arm and the
                        event, which is traced outside the CQ's lock)
  softhca_hw_cq_event   the card raises the event of sequence number s
  softhca_hw_eqe        the COMP EQE at index i of the CQ's EQ
  softhca_hw_irq        the EQ's line raised: after the EQE when it found
                        the EQ armed; else earlier (the tasklet of an
                        earlier EQE had not re-armed it) or at the re-arm
  softhca_eq_irq        the driver's interrupt handler for that EQ, after
                        the line, before the tasklet takes the EQE
  softhca_eqe           the EQ's tasklet takes EQE i
  softhca_cq_comp       ... and calls the CQ's comp_handler
  softhca_eq_tasklet    that tasklet run ends (EQEs consumed, re-armed)
  softhca_eq_doorbell   and, re-armed, EQ_DB = ci | ARM at its ci

and every command completed (softhca_cmd_done) was issued
(softhca_cmd_issue) and run by the card (softhca_hw_cmd) with the status
the driver saw.

Prints one "PASS <case>" or "FAIL <case>: <why>" line per check (the VM
group's check_tool reads them) and, for the learner, the lines of the
first complete event. Exits 1 if a check failed.
"""
import re
import sys

LINE = re.compile(r'^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S*\s*'
                  r'(?P<ts>\d+(?:\.\d+)?):\s+(?P<event>\w+):\s+(?P<rest>.*)$')


def fields(rest):
    """The "key value" pairs of an event's text (first word: the device)."""
    words = rest.split()
    out = {'dev': words[0] if words else ''}
    for k, v in zip(words[1:], words[2:]):
        out.setdefault(k, v)
    return out, words


def parse(path):
    events, lost = [], 0
    with open(path, errors='replace') as f:
        for raw in f:
            if 'LOST' in raw and 'EVENTS' in raw:
                lost += 1
                continue
            m = LINE.match(raw)
            if not m or not m['event'].startswith('softhca'):
                continue
            kv, words = fields(m['rest'])
            events.append({'n': len(events), 'cpu': int(m['cpu']),
                           'event': m['event'], 'kv': kv, 'words': words,
                           'line': raw.rstrip()})
    return events, lost


def eq_vectors(path):
    vec = {}
    with open(path) as f:
        for line in f:
            kv, _ = fields('x ' + line)
            if 'eqn' in kv and 'vector' in kv:
                vec[int(kv['eqn'])] = int(kv['vector'])
    return vec


def last_before(events, n, pred):
    for e in reversed(events[:n]):
        if pred(e):
            return e
    return None


def first_after(events, n, pred, limit=None):
    for e in events[n + 1:limit]:
        if pred(e):
            return e
    return None


def is_(e, name, **want):
    if e['event'] != name:
        return False
    return all(e['kv'].get(k) == str(v) for k, v in want.items())


def check_event(events, comp, vec):
    """The chain behind one comp_handler call, or a reason it is broken."""
    n, cpu, cqn = comp['n'], comp['cpu'], comp['kv']['cqn']
    chain = []
    # the tasklet took the EQE just before it, on this CPU
    took = last_before(events, n, lambda e: e['cpu'] == cpu and
                       e['event'] == 'softhca_eqe')
    if not took or took['words'][5:6] != ['COMP'] or \
       took['kv'].get('obj') != cqn:
        return None, 'no COMP EQE for CQ %s taken just before' % cqn
    eqn, idx = took['kv']['eqn'], took['kv']['ci']
    end = first_after(events, n, lambda e: is_(e, 'softhca_eq_tasklet',
                                               eqn=eqn) and
                      e['cpu'] == cpu)
    if not end or int(end['kv']['consumed']) < 1:
        return None, 'no end of the tasklet run on EQ %s' % eqn
    # that run's end: it counts the EQEs taken since the run before
    # (an EQ's tasklet never runs twice at once)
    prev = last_before(events, took['n'], lambda e: is_(
        e, 'softhca_eq_tasklet', eqn=eqn))
    taken = sum(1 for e in events[(prev['n'] + 1 if prev else 0):end['n']]
                if is_(e, 'softhca_eqe', eqn=eqn))
    if taken != int(end['kv']['consumed']):
        return None, 'the tasklet run on EQ %s took %d EQEs, its end says ' \
            '%s' % (eqn, taken, end['kv']['consumed'])
    hw = last_before(events, took['n'], lambda e: is_(e, 'softhca_hw_eqe',
                                                      eqn=eqn, pi=idx))
    if not hw or hw['kv'].get('obj') != cqn or 'COMP' not in hw['words']:
        return None, 'the card wrote no COMP EQE %s on EQ %s' % (idx, eqn)
    # The line of the EQ raised last before the tasklet took the EQE,
    # then the driver's handler: for an EQE that found the EQ armed
    # ("raise") the line it raised; for one that did not ("not armed"),
    # the line of an earlier EQE whose tasklet had not re-armed the EQ
    # yet, or the one the card raised again when that tasklet re-armed
    # it with this EQE waiting.
    vector = vec.get(int(eqn), -1)
    line = last_before(events, took['n'], lambda e: is_(
        e, 'softhca_hw_irq', vector=vector))
    if not line:
        return None, 'no line of EQ %s raised before its tasklet' % eqn
    # An EQE that found the EQ armed raised the line; but a tasklet run
    # already under way (an earlier line's) may take it before that line
    # is traced: then the line before it is the earlier one, and that
    # run's interrupt must still come between it and the EQE taken.
    # (the card's line and the handler's interrupt may run on two CPUs,
    # whose trace buffers are merged by time stamp: the interrupt may be
    # listed just before the line that raised it, though not before the
    # EQE was written)
    irq = first_after(events, min(line['n'], hw['n']), lambda e: is_(
        e, 'softhca_eq_irq', eqn=eqn), took['n'])
    if not irq:
        return None, 'no interrupt of EQ %s between its line and EQE %s' % (
            eqn, idx)
    chain_irq = [line, irq]
    ev = last_before(events, hw['n'], lambda e: is_(e, 'softhca_hw_cq_event',
                                                    cqn=cqn))
    if not ev:
        return None, 'the card raised no event of CQ %s before EQE %s' % (
            cqn, idx)
    # one EQE per event: none other of this CQ's between them
    if first_after(events, ev['n'], lambda e: e['event'] == 'softhca_hw_eqe'
                   and e['kv'].get('obj') == cqn and 'COMP' in e['words'],
                   hw['n']):
        return None, 'the card raised no event of CQ %s for EQE %s' % (
            cqn, idx)
    sn, why = ev['kv']['sn'], ev['kv']['why']
    arm = last_before(events, ev['n'], lambda e: is_(e, 'softhca_hw_cq_arm',
                                                     cqn=cqn, sn=sn))
    if not arm:
        return None, 'the card never saw an arm of CQ %s with sn %s' % (
            cqn, sn)
    cqe = last_before(events, ev['n'], lambda e: is_(e, 'softhca_hw_cqe',
                                                     cqn=cqn))
    if not cqe:
        return None, 'no CQE of CQ %s before its event' % cqn
    if why == 'cqe':
        # the card writes the CQE, reads the arm word and raises the
        # event in one go, on one CPU: nothing else of the card between
        fired = last_before(events, ev['n'], lambda e: e['cpu'] == ev['cpu']
                            and e['event'].startswith('softhca_hw_') and
                            not is_(e, 'softhca_hw_cq_arm', cqn=cqn))
        if not fired or not is_(fired, 'softhca_hw_cqe', cqn=cqn):
            return None, 'event for a CQE, but no CQE of CQ %s just before' \
                % cqn
        cqe = fired
    if why == 'cqe' and 'cqe' in arm['words'][-1:]:
        # the card read the new arm word right after writing this CQE
        at = last_before(events, arm['n'], lambda e: is_(
            e, 'softhca_hw_cqe', cqn=cqn))
        if at is not cqe:
            return None, 'arm seen at a CQE, but not at the CQE that fired'
    if why == 'arm':
        # The doorbell reads the arm word and the CQ's producer index under
        # the CQ's lock, but traces the event after dropping it: a CQE that
        # another CPU writes in between is listed between the arm and the
        # event. The CQE that waited is the last one before the arm, at or
        # past the arm's consumer index (24 bits).
        waited = last_before(events, arm['n'], lambda e: is_(
            e, 'softhca_hw_cqe', cqn=cqn))
        if 'doorbell' not in arm['words'] or not waited or \
           (int(waited['kv']['pi']) - int(arm['kv']['ci'])) % (1 << 24) \
           >= 1 << 23:
            return None, 'event for an arm, but no doorbell found a CQE ' \
                'waiting'
        cqe = waited
    chain_end = [end]
    if 're-armed' in end['words']:
        # the tasklet hands the EQ back armed: EQ_DB = ci | ARM
        ring = first_after(events, end['n'], lambda e: e['cpu'] == cpu and
                           e['event'].startswith('softhca_eq'))
        if not ring or not is_(ring, 'softhca_eq_doorbell', eqn=eqn,
                               ci=end['kv']['ci']) or \
           'ARM' not in ring['words']:
            return None, 'the tasklet on EQ %s re-armed without EQ_DB' % eqn
        chain_end.append(ring)
    order = [arm, cqe] if arm['n'] < cqe['n'] else [cqe, arm]
    chain = order + [ev, hw] + chain_irq + [took, comp] + chain_end
    return chain, None


def check_commands(events):
    """Each command completed was issued and run by the card, in order.

    softhca_cmd_done (slot s, its name) must follow a softhca_cmd_issue of
    slot s and the same opcode, with the card's softhca_hw_cmd of slot s
    and that opcode between them reporting the status the driver saw.
    Returns the number of commands and the first broken one (or None),
    and one complete command for the learner.
    """
    used, n, shown = set(), 0, None
    for done in (e for e in events if e['event'] == 'softhca_cmd_done'):
        n += 1
        slot, name = done['kv']['slot'], done['words'][3]
        issue = None
        for e in reversed(events[:done['n']]):
            if e['n'] not in used and is_(e, 'softhca_cmd_issue', slot=slot) \
               and e['words'][3] == name:
                issue = e
                break
        if not issue:
            return n, 'no issue of %s in slot %s before trace line %d' % (
                name, slot, done['n']), None
        used.add(issue['n'])
        opcode = issue['words'][4].strip('()')
        run = first_after(events, issue['n'], lambda e: is_(
            e, 'softhca_hw_cmd', slot=slot, opcode=opcode), done['n'])
        if not run:
            return n, 'the card never ran %s of slot %s (trace line %d)' % (
                name, slot, done['n']), None
        if int(run['kv']['status'], 16) != int(done['kv']['status'], 16):
            return n, '%s: the card said status %s, the driver saw %s' % (
                name, run['kv']['status'], done['kv']['status']), None
        if shown is None:
            shown = [issue, run, done]
    return n, None, shown


def main():
    trace, eqs = sys.argv[1], sys.argv[2]
    want = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    events, lost = parse(trace)
    vec = eq_vectors(eqs)
    ok = True

    def result(good, name, why=''):
        nonlocal ok
        print(('PASS %s' % name) if good else ('FAIL %s: %s' % (name, why)))
        ok = ok and good

    names = {e['event'] for e in events}
    need = {'softhca_hw_cq_arm', 'softhca_hw_cqe', 'softhca_hw_cq_event',
            'softhca_hw_eqe', 'softhca_hw_irq', 'softhca_eq_irq',
            'softhca_eqe', 'softhca_cq_comp', 'softhca_eq_tasklet',
            'softhca_hw_wqe', 'softhca_eq_doorbell', 'softhca_cmd_issue',
            'softhca_cmd_done', 'softhca_hw_cmd'}
    result(not (need - names) and not lost, 'trace.events-recorded',
           'lost %d, missing %s' % (lost, sorted(need - names)))

    comps = [e for e in events if e['event'] == 'softhca_cq_comp' and
             'user' in e['words']]
    per_cq, bad, shown = {}, [], None
    for c in comps:
        chain, why = check_event(events, c, vec)
        per_cq[c['kv']['cqn']] = per_cq.get(c['kv']['cqn'], 0) + 1
        if why:
            bad.append('CQ %s, trace line %d: %s' % (c['kv']['cqn'], c['n'],
                                                     why))
        elif shown is None and 'cqe' in chain[2]['words'][-1:] \
                and 'raise' in chain[3]['words']:
            shown = chain
    counts = ', '.join('CQ %s: %d' % kv for kv in sorted(per_cq.items()))
    result(len(per_cq) >= 2 and all(v >= want for v in per_cq.values()),
           'trace.events-per-cq', 'want two CQs with %d events at least, '
           'got %s' % (want, counts or 'none'))
    # With the "counter" trace clock (t80) the two CPUs' buffers merge in
    # the order the events were recorded, so every event must walk the
    # whole path in order: one step missing or out of place fails.
    for b in bad:
        print('# out of order or incomplete: %s' % b)
    result(comps and not bad,
           'trace.arm-cqe-eqe-irq-tasklet-comp-per-event',
           '%d of %d events broken; first: %s' % (
               len(bad), len(comps), bad[0] if bad else 'no events'))
    print('# %d completion events (%s), %d broken' % (len(comps), counts,
                                                       len(bad)))
    ncmd, why, cmd = check_commands(events)
    result(ncmd and not why, 'trace.commands-issued-run-completed',
           why or 'no command in the trace')
    print('# %d commands' % ncmd)
    if cmd:
        print('# one command, issued, run by the card, completed:')
        for e in cmd:
            print('#   ' + e['line'])
    if shown:
        print('# one event, the card then the driver:')
        for e in shown:
            print('#   ' + e['line'])
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
