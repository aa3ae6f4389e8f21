#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of lab_series' judges on the captured output of real runs
(test_data/series/, see its README): checkpatch, per-commit builds with
W=1, b4, the mails' recipients, the git am round trip, series mutants.

Where a capture is a whole `make series` run (test_data/series/6.12/, the
6.12 series stage of a `make test`), the judges must give back the very
verdict lines that run printed (its verdicts.json)."""

import email.utils
import json
import os
import re
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Optional, Sequence
from unittest import mock

import lab_overlay
import lab_paths
import lab_series
import lab_testing
from lab_errors import LabError
from lab_series import BuildRun, CheckpatchRun, Run
from lab_verdict import FAIL, PASS, Verdict

DATA = Path(__file__).resolve().parent / 'test_data' / 'series'
RUN = DATA / '6.12'			# make test's 6.12 series stage
MADE = DATA / 'produced'		# real tools on real (damaged) inputs
ME = 'hibernate-lab@example.org'	# the series' author, never a recipient
SENDER = ('Jane Doe', 'jane.doe@kernel.org')	# the identity of IDENTITY's run
IDENTITY = DATA / 'identity'		# a make series with a real-looking sender
KIRILL = ('Kirill A. Shutemov', 'kirill.shutemov@linux.intel.com')
F666 = 'f666c92090a41ac5524dade63ff96b3adcf8c2ab'
# v1's 6.12 patch 1, a backport of F666 (v2 dropped it; neither series has
# a backport now), as the overlay stored it.
BACKPORT = DATA / 'identity' / 'backport-commit.txt'


def runs(log: Path, failed: Optional[Dict[int, int]] = None) -> List[Run]:
	"""The runs in a log lab_series.run_logged wrote: a '$ argv' line,
	then that run's output.  The logs carry no exit code: `failed` maps
	the index of each run that failed to its code (the README says which
	did); every other run exited 0."""
	failed = failed or {}
	parts = re.split(r'^\$ (.*)\n', log.read_text(), flags=re.M)[1:]
	return [Run(tuple(argv.split(' ')), failed.get(i, 0), out, log)
		for i, (argv, out) in enumerate(zip(parts[::2], parts[1::2]))]


def checkpatch_runs(log: Path) -> List[CheckpatchRun]:
	return [CheckpatchRun(Path(r.argv[-1]), r) for r in runs(log)]


def builds(log: Path, commits: Sequence[tuple],
	   failed: Optional[Dict[int, int]] = None) -> List[BuildRun]:
	"""The BuildRuns of a build-<config>.log: each commit's runs start
	with its allnoconfig; W=1 runs come in pairs, parent then commit.
	commits: (subject, touched .c files) per commit, in order."""
	groups: List[List[Run]] = []
	for r in runs(log, failed):
		if r.argv[-1] == 'allnoconfig':
			groups.append([])
		groups[-1].append(r)
	out = []
	for n, (group, (subject, touched)) in enumerate(zip(groups, commits), 1):
		make = tuple(r for r in group if 'W=1' not in r.argv)
		w1 = [r for r in group if 'W=1' in r.argv] or [None, None]
		out.append(BuildRun(n, f'{n:040x}', subject, 'guest',
				    tuple(touched), make, w1[0], w1[1]))
	return out


def printed(prefix: str) -> List[str]:
	"""The verdict lines the captured run printed for names under
	6.12/<prefix>, without the base."""
	checks = json.loads((RUN / 'verdicts.json').read_text())['checks']
	return [Verdict(c['name'][len('6.12/'):], c['status'], c['detail']).line()
		for c in checks if c['name'].startswith(f'6.12/{prefix}')]


def lines(verdicts: Sequence[Verdict]) -> List[str]:
	return [v.line() for v in verdicts]


def subjects(series_log: Path) -> List[str]:
	"""The commits' subjects, from the progress lines of the run."""
	return re.findall(r'^series: building \d+/\d+ "(.*)" \(guest config\)$',
			  series_log.read_text(), re.M)


def mutant(name: str) -> lab_series.SeriesMutant:
	return lab_series.parse_series_mutant(RUN / 'mutants' / f'{name}.patch')


# The .c files each commit of the 6.12 series touches (git diff
# --name-only of the topic branch), in series order.
TOUCHED_612 = [('arch/x86/mm/ident_map.c',), ('arch/x86/mm/ident_map.c',),
	       ('arch/x86/mm/ident_map.c',),
	       ('arch/x86/mm/ident_map_kunit.c', 'arch/x86/mm/init_64.c'),
	       ('arch/x86/power/hibernate.c',),
	       ('arch/x86/power/hibernate.c',
		'arch/x86/power/hibernate_kunit.c'),
	       ('arch/x86/kernel/smpboot.c', 'arch/x86/power/cpu.c')]


class CheckpatchTest(unittest.TestCase):
	def justified(self) -> Dict[int, set]:
		return lab_series.justified_findings(
			(RUN / 'cover-letter.txt').read_text())

	def test_the_series_passes_as_the_run_printed(self) -> None:
		got = lab_series.judge_checkpatch(
			checkpatch_runs(RUN / 'checkpatch.log'), self.justified())
		self.assertEqual(lines(got), printed('series/checkpatch/'))
		self.assertTrue(lab_series.passed(got))

	def test_trailing_whitespace_stops_the_run(self) -> None:
		m = mutant('trailing-whitespace')
		got = lab_series.judge_checkpatch(checkpatch_runs(
			RUN / 'mutant-trailing-whitespace' / 'checkpatch.log'),
			self.justified(), m)
		failed = [v for v in got if v.status == FAIL]
		self.assertEqual([v.name for v in failed],
				 ['series/checkpatch/0008', 'series'])
		self.assertIn('first: ERROR:TRAILING_WHITESPACE', failed[0].detail)
		self.assertIn('stopped: a patch has checkpatch findings',
			      failed[1].detail)
		self.assertEqual(lab_series.judge_mutant(m, got).line(),
				 printed('series-mutant/trailing-whitespace')[0])

	def test_justifications_follow_the_patches_past_a_mutant(self) -> None:
		# The mutant commit after 0001 moves every later patch up one:
		# the cover letter's "in 4" must still mean the real patch 4.
		cp = checkpatch_runs(RUN / 'mutant-commit-does-not-build' /
				     'checkpatch.log')
		got = lab_series.judge_checkpatch(cp, self.justified(),
						  mutant('commit-does-not-build'))
		self.assertTrue(lab_series.passed(got), lines(got))
		unnumbered = lab_series.judge_checkpatch(cp, self.justified())
		self.assertEqual([v.name for v in unnumbered if v.status == FAIL],
				 ['series/checkpatch/0005', 'series/checkpatch/0007',
				  'series'])
		self.assertIn('first: WARNING:UNKNOWN_COMMIT_ID',
			      unnumbered[4].detail)

	def test_an_unjustified_warning_fails(self) -> None:
		# Patch 5 with a comment past 100 columns (produced/, README).
		run = runs(MADE / 'checkpatch-long-comment.log', {0: 1})[0]
		v = lab_series.checkpatch_verdict('series/checkpatch/0005',
						  run.output,
						  self.justified().get(5, set()))
		self.assertEqual(v.line(), 'FAIL series/checkpatch/0005: 0 errors, '
				 '1 warnings, 0 checks, 19 lines; first: WARNING:'
				 'LONG_LINE_COMMENT: line length of 103 exceeds '
				 '100 columns')
		self.assertEqual(lab_series.checkpatch_verdict(
			'c', run.output, {'LONG_LINE_COMMENT'}).status, PASS)

	def test_no_summary_is_a_failure(self) -> None:
		run = runs(MADE / 'checkpatch-missing-patch.log', {0: 2})[0]
		v = lab_series.checkpatch_verdict('c', run.output)
		self.assertEqual(v.status, FAIL)
		self.assertIn('printed no summary: ', v.detail)
		self.assertIn('open failed - No such file or directory', v.detail)

	def test_cover_numbers(self) -> None:
		m = mutant('commit-does-not-build')
		self.assertEqual([lab_series.cover_number(n, m) for n in (1, 2, 3, 8)],
				 [1, 0, 2, 7])
		self.assertEqual(lab_series.cover_number(3, None), 3)


class BuildTest(unittest.TestCase):
	def test_every_commit_builds_as_the_run_printed(self) -> None:
		commits = list(zip(subjects(RUN / 'series.log')[:7], TOUCHED_612))
		got = [v for b in builds(RUN / 'build-guest.log', commits)
		       for v in lab_series.judge_build(b)]
		self.assertEqual(lines(got), printed('series/build/'))

	def test_moved_kernel_doc_warnings_are_not_new(self) -> None:
		# Commit 6 moves hibernate.c's upstream kernel-doc warnings
		# from lines 47 and 92 to 51 and 82.
		commits = list(zip(subjects(RUN / 'series.log')[:7], TOUCHED_612))
		b = builds(RUN / 'build-guest.log', commits)[5]
		self.assertIn('hibernate.c:47: warning', b.w1_parent.output)
		self.assertIn('hibernate.c:51: warning', b.w1_commit.output)
		self.assertEqual(lab_series.judge_w1(b.w1_parent, b.w1_commit,
						     b.touched), '')
		# Nor does a W=1 make that fails at the parent as well.
		failing = [Run(r.argv, 2, r.output, r.log)
			   for r in (b.w1_parent, b.w1_commit)]
		self.assertEqual(lab_series.judge_w1(*failing, b.touched), '')
		self.assertEqual(lab_series.judge_w1(
			b.w1_parent, failing[1], b.touched), 'W=1: make W=1 failed')

	def test_a_commit_that_does_not_build_stops_the_run(self) -> None:
		m = mutant('commit-does-not-build')
		s = subjects(RUN / 'series.log')[7:]
		# The vmlinux make of commit 2 (the sixth run) exited 2.
		b = builds(RUN / 'mutant-commit-does-not-build' / 'build-guest.log',
			   [(s[0], TOUCHED_612[0]), (s[1], ())], {5: 2})
		self.assertEqual(lab_series.judge_build(b[0])[0].status, PASS)
		got = lab_series.judge_build(b[1])
		self.assertEqual([(v.name, v.status) for v in got],
				 [('series/build/0002-guest', FAIL),
				  ('series', FAIL)])
		self.assertIn("error: implicit declaration of function "
			      "‘temporary_mapping_fits’", got[0].detail)
		self.assertEqual(got[1].detail, f'stopped: commit 2 '
				 f'({b[1].commit[:12]}) does not build on its own')
		self.assertEqual(lab_series.judge_mutant(m, got).line(),
				 printed('series-mutant/commit-does-not-build')[0])

	def test_a_mutant_that_stops_the_run_elsewhere_says_why(self) -> None:
		# The cold run at 0985203: patch 10 rewrote the function the
		# mutant commit changed, so the branch could not be built.
		m = mutant('commit-does-not-build')
		got = [Verdict('series', FAIL, 'git cherry-pick failed in /wt: '
			       'error: could not apply 1234abc...')]
		self.assertEqual(lab_series.judge_mutant(m, got).line(),
				 'FAIL series-mutant/commit-does-not-build: '
				 'expected a stop at series/build/0002-guest; '
				 'failed: series (git cherry-pick failed in /wt: '
				 'error: could not apply 1234abc...)')

	def test_a_new_w1_warning_fails(self) -> None:
		# A commit on the 6.12 topic adding a function without a
		# prototype to hibernate.c (produced/, README).
		subject = "x86/power: Copy the header's restore fields in a helper"
		b = builds(MADE / 'build-guest-w1.log',
			   [(subject, ('arch/x86/power/hibernate.c',))])[0]
		got = lab_series.judge_build(b)
		self.assertEqual(got[0].status, FAIL)
		self.assertRegex(got[0].detail, r'^"x86/power: Copy .*": W=1: '
				 r'\S*/arch/x86/power/hibernate.c:47:6: warning: '
				 r'no previous prototype for .restore_header_fields.')
		# The kernel-doc warnings it moved (51 -> 58, 82 -> 89) are
		# at the parent too: the one new warning is the prototype.
		def keys(run: Run) -> set:
			return {lab_series.w_key(w) for w in lab_series.w1_warnings(
				run.output, b.touched)}
		self.assertEqual(len(keys(b.w1_parent)), 2)
		self.assertEqual(len(keys(b.w1_commit) - keys(b.w1_parent)), 1)

	def test_make_goals_name_what_hung(self) -> None:
		b = runs(RUN / 'build-guest.log')
		self.assertEqual([lab_series.make_goals(r.argv) for r in b[:3]],
				 ['allnoconfig', 'vmlinux',
				  'W=1 arch/x86/mm/init_64.o'])


class B4Test(unittest.TestCase):
	def test_the_series_enrolls_and_sends(self) -> None:
		b4 = runs(RUN / 'b4.log')
		self.assertEqual([' '.join(r.argv[1:3]) for r in b4],
				 ['prep -e', 'prep --edit-cover', 'prep --auto-to-cc',
				  'prep -p', 'send -o'])
		for r in b4:
			self.assertEqual(lab_series.judge_b4(r, 'x'), r.output)
		lab_series.judge_auto_to_cc(b4[2].output)

	def test_auto_to_cc_without_get_maintainer(self) -> None:
		# A toy repository without scripts/get_maintainer.pl: b4
		# exits 0 and adds nobody.
		auto = runs(MADE / 'b4-editme.log', {2: 1})[1]
		self.assertEqual(auto.argv, ('b4', 'prep', '--auto-to-cc'))
		with self.assertRaisesRegex(LabError, 'did not run scripts/'
					    'get_maintainer.pl.*chmod \\+x'):
			lab_series.judge_auto_to_cc(
				lab_series.judge_b4(auto, 'prep --auto-to-cc'))

	def test_a_failing_b4_is_its_critical_line(self) -> None:
		send = runs(MADE / 'b4-editme.log', {2: 1})[2]
		with self.assertRaises(LabError) as e:
			lab_series.judge_b4(send, 'send -o')
		self.assertEqual(str(e.exception), 'b4 send -o failed: CRITICAL: '
				 'Looks like the cover letter needs to be edited '
				 f'first.: see {MADE / "b4-editme.log"}')


class MailTest(unittest.TestCase):
	def want(self, base: str) -> set:
		return lab_series.parse_recipients(
			(DATA / 'MAINTAINERS-notes').read_text(), base)

	def test_the_mails_go_to_the_notes_recipients(self) -> None:
		mails = sorted((RUN / 'mails').glob('*.eml'))
		got = [lab_series.judge_mail(lab_series.read_mail(m),
					     self.want('6.12'), ME) for m in mails]
		self.assertEqual(lines(got), printed('series/mail/')[:len(mails)])

	def test_recipients_of_another_tree_fail(self) -> None:
		# 7.3's MAINTAINERS names Thomas Gleixner and Pavel Machek at
		# kernel.org: a 7.3 mail is wrong for the 6.12 series.
		m = lab_series.read_mail(next((DATA / '7.3' / 'mails').glob('*.eml')))
		self.assertEqual(lab_series.judge_mail(m, self.want('7.3'),
						       ME).status, PASS)
		v = lab_series.judge_mail(m, self.want('6.12'), ME)
		self.assertEqual(v.line(), 'FAIL series/mail/0001: recipients '
				 'differ from MAINTAINERS-notes: missing '
				 'pavel@ucw.cz, tglx@linutronix.de, extra '
				 'pavel@kernel.org, tglx@kernel.org')

	def test_a_mail_without_to_fails(self) -> None:
		# git format-patch of the series' first commit: no recipients.
		m = lab_series.read_mail(MADE / '0001-format-patch-no-to.eml')
		self.assertEqual(lab_series.judge_mail(m, self.want('6.12'),
						       ME).line(),
				 'FAIL series/mail/0001: no To: (b4 send refuses '
				 'a series without recipients)')

	def test_mail_recipients(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			m = Path(tmp) / '0001.eml'
			m.write_text('From: A <a@x>\nTo: B <b@x>,\n "C, D" <c@x>\n'
				     'Cc: l@x\nSubject: s\n\nbody\n')
			self.assertEqual(lab_series.mail_recipients(m),
					 (['b@x', 'c@x'], ['l@x']))


class RoundTripTest(unittest.TestCase):
	def record(self, name: str) -> lab_series.RoundTrip:
		return lab_series.RoundTrip(**json.loads(
			(MADE / f'{name}.json').read_text()))

	def test_the_mails_give_the_topic_tree(self) -> None:
		v = lab_series.judge_round_trip(self.record('round-trip-6.12-mails'))
		self.assertEqual(v.line(), printed('series/round-trip')[0])

	def test_mails_of_another_tree_fail(self) -> None:
		# The trailing-whitespace mutant's patches carry a commit the
		# topic does not have.
		v = lab_series.judge_round_trip(self.record(
			'round-trip-6.12-trailing-whitespace-patches'))
		self.assertEqual(v.status, FAIL)
		self.assertIn('tree b08693e5aa1d != topic tree c44de57706d9',
			      v.detail)

	def test_mails_that_do_not_apply_stop_the_run(self) -> None:
		with self.assertRaisesRegex(LabError, r'^git am of the written '
					    r'mails failed \(git am failed in '):
			lab_series.judge_round_trip(self.record(
				'round-trip-7.3-mails-onto-6.12'))


class TimeoutTest(unittest.TestCase):
	"""A run killed at its timeout is one line naming it, not a
	traceback and not a finding about the series."""

	def test_a_hung_process_is_recorded(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			log = Path(tmp) / 'b4.log'
			run = lab_series.run_logged(
				['sh', '-c', 'echo started; exec sleep 30'],
				Path(tmp), log, timeout=1)
			self.assertTrue(run.timed_out)
			self.assertEqual(run.output, 'started\n')
			self.assertIn('[killed: timed out after 1 s]',
				      log.read_text())
			with self.assertRaises(LabError) as e:
				lab_series.judge_b4(run, 'send -o')
			self.assertEqual(str(e.exception).count('\n'), 0)
			self.assertRegex(str(e.exception), r'^b4 send -o timed out '
					 r'after 1 s: see the end of .*b4.log')

	def test_every_judge_of_a_run_names_what_hung(self) -> None:
		hung = Run(('make', '-C', '/t', 'O=/b', '-j2', 'vmlinux'), -1,
			   '  CC      init/main.o\n', Path('/r/build-guest.log'),
			   timed_out=True)
		b = BuildRun(2, 'c' * 40, 's', 'guest', (), (runs(
			RUN / 'build-guest.log')[0], hung))
		with self.assertRaisesRegex(LabError, r'^make vmlinux of commit 2 '
					    r'\(guest config\) timed out after '
					    r'1800 s: see the end of '
					    r'/r/build-guest.log'):
			lab_series.judge_build(b)
		with self.assertRaisesRegex(LabError, r'^checkpatch.pl on '
					    r'0003-x.patch timed out'):
			lab_series.judge_checkpatch(
				[CheckpatchRun(Path('/p/0003-x.patch'), hung)], {})


class HelperTest(unittest.TestCase):
	"""The helpers on small written inputs."""

	def test_checkpatch_summary(self) -> None:
		clean = 'total: 0 errors, 0 warnings, 0 checks, 52 lines checked\n'
		v = lab_series.checkpatch_verdict('series/checkpatch/0001', clean)
		self.assertEqual(v.status, 'PASS')
		dirty = ('ERROR:TRAILING_WHITESPACE: trailing whitespace\n'
			 '#12: FILE: a.c:3:\n'
			 'total: 1 errors, 0 warnings, 0 checks, 9 lines checked\n')
		v = lab_series.checkpatch_verdict('c', dirty)
		self.assertEqual(v.status, 'FAIL')
		self.assertIn('first: ERROR:TRAILING_WHITESPACE', v.detail)
		self.assertEqual(lab_series.checkpatch_verdict('c', '').status,
				 'FAIL')
		warned = ('WARNING:UNKNOWN_COMMIT_ID: Unknown commit id\n'
			  'total: 0 errors, 1 warnings, 0 checks, 9 lines checked\n')
		self.assertEqual(lab_series.checkpatch_verdict('c', warned).status,
				 'FAIL')
		v = lab_series.checkpatch_verdict('c', warned,
						  {'UNKNOWN_COMMIT_ID'})
		self.assertEqual(v.status, 'PASS')
		self.assertIn('justified', v.detail)
		self.assertEqual(lab_series.checkpatch_verdict(
			'c', dirty, {'TRAILING_WHITESPACE'}).status, 'FAIL')
		self.assertEqual(lab_series.justified_findings(
			'Notes:\n   UNKNOWN_COMMIT_ID in 3, 4: ids are upstream\n'
			'   EXPORT_SYMBOL in 4: why\n'),
			{3: {'UNKNOWN_COMMIT_ID'}, 4: {'UNKNOWN_COMMIT_ID',
						      'EXPORT_SYMBOL'}})

	def test_expected_recipients_from_maintainers_notes(self) -> None:
		want = lab_series.expected_recipients(lab_paths.REPO_ROOT, '6.12')
		self.assertIn('x86@kernel.org', want)
		self.assertIn('rafael@kernel.org', want)
		self.assertIn('linux-pm@vger.kernel.org', want)

	def test_cover_letter_with_editme_is_refused(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			d = Path(tmp) / 'branch-overlay' / 'b'
			d.mkdir(parents=True)
			(d / 'cover-letter.txt').write_text('EDITME: title\n')
			with self.assertRaisesRegex(LabError, 'still says EDITME'):
				lab_series.read_cover(Path(tmp), 'b')
		self.assertNotIn('EDITME', lab_series.read_cover(lab_paths.REPO_ROOT,
								 '6.12'))

	def test_objects_built_from_included_sources(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			b = Path(tmp)
			(b / 'arch/x86/mm').mkdir(parents=True)
			(b / 'arch/x86/mm/init_64.o').write_text('')
			(b / 'arch/x86/mm/.init_64.o.cmd').write_text(
				'deps_arch/x86/mm/init_64.o := \\\n'
				'  /t/arch/x86/mm/init_64.c \\\n'
				'  /t/arch/x86/mm/ident_map.c \\\n')
			(b / 'arch/x86/mm/.other.o.cmd').write_text(
				'  /t/arch/x86/mm/ident_map.cpp \\\n')
			self.assertEqual(lab_series.objects_built_from(
				b, ['arch/x86/mm/ident_map.c']),
				['arch/x86/mm/init_64.o'])

	def test_w1_command_is_serial(self) -> None:
		# A parallel single-object build races in arch/x86/power/
		# (found by CI: "fixdep: error opening file").
		make = ['make', '-C', '/t', 'O=/b', '-j2']
		self.assertEqual(lab_series.w1_command(make, ['a/b.o', 'c.o']),
				 ['make', '-C', '/t', 'O=/b', '-j1', '-k', 'W=1',
				  'a/b.o', 'c.o'])

	def test_w1_warning_key_ignores_tree_and_line(self) -> None:
		a = ('/c/worktrees/series-build/arch/x86/power/hibernate.c:47: '
		     "warning: Function parameter or member 'pfn' not described")
		b = a.replace(':47:', ':52:')
		self.assertEqual(lab_series.w_key(a), lab_series.w_key(b))
		self.assertEqual(lab_series.w_key(a), 'arch/x86/power/hibernate.c: '
				 "warning: Function parameter or member 'pfn' not "
				 'described')

	def test_series_mutants_parse(self) -> None:
		for m in lab_series.read_series_mutants(lab_paths.REPO_ROOT, '6.12'):
			self.assertTrue(m.stops_at.startswith('series/'))
		with tempfile.TemporaryDirectory() as tmp:
			p = Path(tmp) / 'bad.patch'
			p.write_text('Inserts-after: 1\nStops-at: x\n\ndiff --git a b\n')
			with self.assertRaisesRegex(LabError, 'malformed'):
				lab_series.parse_series_mutant(p)

	def test_mutant_commit_message(self) -> None:
		m = mutant('trailing-whitespace')
		msg = lab_series.mutant_commit_message(
			m, m.path.read_text(), ('Hibernate Lab', ME))
		self.assertTrue(msg.startswith('x86/power: Series mutant '
					       'trailing-whitespace\n\n'))
		self.assertTrue(msg.endswith(f'\n\nSigned-off-by: Hibernate Lab '
					     f'<{ME}>'))


class IdentityTest(unittest.TestCase):
	"""Whose the mails are: the sender's identity, never a placeholder;
	the sender's Signed-off-by once; a backport keeps its author."""

	def refusal(self, who: lab_series.Identity) -> str:
		with self.assertRaises(LabError) as e:
			lab_series.judge_sender(who)
		self.assertEqual(str(e.exception).count('\n'), 0)
		return str(e.exception)

	def test_a_placeholder_identity_is_refused_in_one_line(self) -> None:
		self.assertEqual(self.refusal(('Hibernate Lab', ME)),
				 "sender identity 'Hibernate Lab <hibernate-lab@"
				 "example.org>' is the placeholder: set git config "
				 '--global user.name/user.email to yours (make '
				 'series signs off every patch with it)')
		self.assertIn("'' is not set: set git config",
			      self.refusal(('', '')))
		self.assertIn('has an empty email', self.refusal(('Jane', '')))
		self.assertIn('has an empty name',
			      self.refusal(('', 'jane@kernel.org')))
		for addr in ('jane', 'root@localhost'):
			self.assertIn('has no real email address',
				      self.refusal(('Jane', addr)))
		for addr in ('jane@example.com', 'jane@mail.example.net',
			     'dev@a-seed.example', 'dev@host.localdomain',
			     'jane@kernel.test', 'base-import@hibernate-lab.invalid'):
			self.assertIn('a domain reserved for examples',
				      self.refusal(('Jane Doe', addr)), addr)
		self.assertIn('is the placeholder', self.refusal(
			('Hibernate Lab', 'someone@kernel.org')))
		self.assertIn('is the placeholder', self.refusal(
			lab_series.IMPORT_IDENTITY))
		# make test's rehearsal identity cannot prepare real mails.
		self.assertIn('hibernate-lab.invalid', self.refusal(
			lab_series.REHEARSAL_SENDER))

	def test_a_person_is_accepted(self) -> None:
		for who in (SENDER, KIRILL, ('Åsa Öberg', 'asa@oberg.se')):
			self.assertEqual(lab_series.judge_sender(who), who)

	def test_a_backport_keeps_its_author(self) -> None:
		author, _, message = lab_overlay.parse_commit_txt(BACKPORT)
		self.assertEqual(lab_series.upstream_commit(message), F666)
		self.assertEqual(lab_series.mail_author(
			email.utils.parseaddr(author), message, SENDER), KIRILL)
		# Our own patches, on both bases, are the sender's.
		for base in ('6.12', '7.3'):
			steps = lab_overlay.read_steps(lab_paths.overlay_dir(
				lab_paths.REPO_ROOT, base))
			self.assertEqual([lab_series.upstream_commit(s.message)
					  for s in steps], [''] * len(steps), base)
			self.assertEqual([lab_series.mail_author(
				email.utils.parseaddr(s.author), s.message, SENDER)
				for s in steps], [SENDER] * len(steps), base)
		self.assertEqual(lab_series.upstream_commit(
			f's\n\n[ Upstream commit {F666} ]\n\nbody\n'), F666)
		# Naming the commit later in the message is not a backport.
		self.assertEqual(lab_series.upstream_commit(
			f's\n\nbody\n\ncommit {F666} upstream.\n'), '')

	def test_the_senders_signoff_is_added_once(self) -> None:
		steps = lab_overlay.read_steps(lab_paths.overlay_dir(
			lab_paths.REPO_ROOT, '6.12'))
		sob = 'Signed-off-by: Jane Doe <jane.doe@kernel.org>'
		for s in steps:
			once = lab_series.sign_off(s.message, SENDER)
			self.assertEqual(lab_series.sign_off(once, SENDER), once)
			self.assertEqual(once.count(sob), 1, s.name)
			self.assertTrue(once.endswith(f'\n{sob}\n'), s.name)
			# The overlay's placeholder sign-off is no one's.
			self.assertNotIn(ME, once)
		# The backport: after its trailers and backporter's note, in
		# the same block; its own sign-offs stay, in order.
		backport = lab_series.sign_off(
			lab_overlay.parse_commit_txt(BACKPORT)[2], SENDER)
		self.assertRegex(backport, r'\nSigned-off-by: Kirill A. Shutemov '
				 r'<kirill.shutemov@linux.intel.com>\n'
				 r'Signed-off-by: Ingo Molnar <mingo@kernel.org>\n'
				 r'(.+\n)+  blank lines .* are kept. \]\n' + sob + '\n$')
		# A message the sender signed already (any case) keeps its one.
		signed = 's\n\nbody\n\nSigned-off-by: Jane Doe <Jane.Doe@Kernel.org>\n'
		self.assertEqual(lab_series.sign_off(signed, SENDER), signed)
		# Prose last: the sign-off starts the trailer block.
		self.assertEqual(lab_series.sign_off('s\n\nbody\n\n\n', SENDER),
				 f's\n\nbody\n\n{sob}\n')
		self.assertEqual(lab_series.sign_off(
			's\n\nbody\n\nFixes: 0123456789ab ("x")\nSigned-off-by: '
			f'Hibernate Lab <{ME}>\n', SENDER),
			f's\n\nbody\n\nFixes: 0123456789ab ("x")\n{sob}\n')


class SignTest(lab_testing.LabTestCase):
	"""Series._sign on a tree: the b4 branch is the sender's, the
	topic and its trees are left as they were."""

	def commit(self, git, author: str, message: str) -> str:
		path = git.worktree / 'arch/x86/mm/ident_map.c'
		path.write_text(path.read_text() + 'int more;\n')
		env = lab_overlay.identity_env(author, '2024-10-16T14:14:55+03:00')
		git.run(['commit', '-q', '-a', '-F', '-'], stdin=message.encode(),
			env=env)
		return git.text(['rev-parse', 'HEAD'])

	def test_the_b4_branch_is_the_senders(self) -> None:
		tree = self.fake.build()
		git = tree.git
		git.run(['checkout', '-q', lab_overlay.TOPIC])
		self.commit(git, 'Kirill A. Shutemov <kirill.shutemov@linux.'
			    'intel.com>', f'x86/mm: Backport\n\ncommit {F666} '
			    'upstream.\n\nWhy.\n\nSigned-off-by: Kirill A. '
			    'Shutemov <kirill.shutemov@linux.intel.com>\n')
		topic = self.commit(git, f'Hibernate Lab <{ME}>', 'x86/mm: Ours'
				    f'\n\nWhy.\n\nSigned-off-by: Hibernate Lab '
				    f'<{ME}>\n')
		series = lab_series.Series(lab_series.SeriesRequest(
			git, tree.base, topic, self.fake.cache, self.fake.repo,
			self.root / 'results', 1, base_name='fake', sender=SENDER),
			lab_testing.quiet)
		wt = series._branch()
		log = wt.text(['log', '--format=%an <%ae>|%cn <%ce>|%ad|%B%x00',
			       '--date=iso-strict', f'{tree.base}..HEAD'])
		ours, backport = [c.strip() for c in log.split('\0')[:2]]
		self.assertEqual(ours, 'Jane Doe <jane.doe@kernel.org>|Jane Doe '
				 '<jane.doe@kernel.org>|2024-10-16T14:14:55+03:00|'
				 'x86/mm: Ours\n\nWhy.\n\nSigned-off-by: Jane Doe '
				 '<jane.doe@kernel.org>')
		self.assertTrue(backport.startswith(
			'Kirill A. Shutemov <kirill.shutemov@linux.intel.com>|'
			'Jane Doe <jane.doe@kernel.org>|'), backport)
		self.assertTrue(backport.endswith(
			'\nSigned-off-by: Kirill A. Shutemov <kirill.shutemov@'
			'linux.intel.com>\nSigned-off-by: Jane Doe '
			'<jane.doe@kernel.org>'), backport)
		self.assertEqual(wt.tree_of('HEAD'), git.tree_of(topic))
		self.assertEqual(git.rev(lab_overlay.TOPIC), topic)

	def test_a_placeholder_sender_stops_before_anything_runs(self) -> None:
		with self.assertRaisesRegex(LabError, 'is the placeholder'):
			lab_series.Series(lab_series.SeriesRequest(
				lab_series.Git(self.root), 'b', 't', self.root,
				self.root, self.root / 'results', 1, base_name='x',
				sender=('Hibernate Lab', ME)))
		self.assertFalse((self.root / 'results').exists())

	def test_git_config_is_the_sender(self) -> None:
		tree = self.fake.build()
		# The import's local identity, as trees imported before this
		# change carry it, would shadow the user's.
		tree.git.run(['config', 'user.name', 'hibernate-lab'])
		tree.git.run(['config', 'user.email', 'hibernate-lab@invalid'])
		home = self.root / 'home'
		home.mkdir()
		(home / '.gitconfig').write_text('[user]\n\tname = Jane Doe\n'
						 '\temail = jane.doe@kernel.org\n')
		with mock.patch.dict(os.environ, {'HOME': str(home),
						  'XDG_CONFIG_HOME': str(home),
						  'GIT_CONFIG_SYSTEM': os.devnull}):
			os.environ.pop('GIT_CONFIG_GLOBAL', None)
			self.assertEqual(lab_series.read_git_sender(tree.git), SENDER)
		with mock.patch.dict(os.environ, {'HOME': str(self.root),
						  'XDG_CONFIG_HOME': str(self.root),
						  'GIT_CONFIG_SYSTEM': os.devnull}):
			os.environ.pop('GIT_CONFIG_GLOBAL', None)
			self.assertEqual(lab_series.read_git_sender(tree.git), ('', ''))
		lab_series.drop_import_identity(tree.git)
		self.assertEqual(tree.git.text(['config', '--local', '--get-regexp',
						'^user'], check=False), '')
		# A user's own local identity is theirs: kept.
		tree.git.run(['config', 'user.email', 'me@kernel.org'])
		lab_series.drop_import_identity(tree.git)
		self.assertEqual(tree.git.text(['config', '--local', 'user.email']),
				 'me@kernel.org')


class IdentityMailTest(unittest.TestCase):
	"""series/mail/NNNN on the mails of a real make series run with a
	sender (test_data/series/identity/, see its README)."""

	def mails(self) -> List[lab_series.Mail]:
		return [lab_series.read_mail(m) for m in
			sorted((IDENTITY / 'mails').glob('*.eml'))]

	def want(self) -> set:
		return lab_series.parse_recipients(
			(IDENTITY / 'MAINTAINERS-notes').read_text(), '6.12')

	def judge(self, mail: lab_series.Mail) -> Verdict:
		return lab_series.judge_mail(mail, self.want(), SENDER[1])

	def test_the_mails_are_the_senders_as_the_run_printed(self) -> None:
		mails = self.mails()
		checks = json.loads((IDENTITY / 'verdicts.json').read_text())
		printed_ = [Verdict(c['name'], c['status'], c['detail']).line()
			    for c in checks['checks']
			    if c['name'].startswith('series/mail/')]
		self.assertEqual(lines(lab_series.judge_mails(
			mails, self.want(), SENDER[1])),
			printed_[:len(mails)])
		cover, backport, ours = mails
		self.assertEqual((backport.sender, backport.author,
				  backport.upstream, backport.signoffs),
				 (SENDER[1], KIRILL[1], F666,
				  (KIRILL[1], 'mingo@kernel.org', SENDER[1])))
		self.assertEqual((ours.sender, ours.author, ours.upstream,
				  ours.signoffs), (SENDER[1], SENDER[1], '',
						   (SENDER[1],)))
		# b4 copies the backport to the people its trailers name (and
		# the cover letter to all of them): not MAINTAINERS-notes'.
		self.assertIn('kai.huang@intel.com', backport.cc)
		self.assertIn('kai.huang@intel.com', cover.cc)
		self.assertNotIn('kai.huang@intel.com', ours.cc)
		self.assertEqual(self.judge(cover).status, FAIL)

	def damaged(self, n: int, old: str, new: str) -> lab_series.Mail:
		path = next((IDENTITY / 'mails').glob(f'{n:04d}-*.eml'))
		data = path.read_bytes()
		self.assertIn(old.encode(), data)
		return lab_series.parse_mail(path.name, data.replace(
			old.encode(), new.encode(), 1))

	def test_a_backport_under_the_senders_name_fails(self) -> None:
		m = self.damaged(1, 'From: "Kirill A. Shutemov" <kirill.shutemov@'
				 'linux.intel.com>\n\n', '')
		self.assertEqual(self.judge(m).line(), 'FAIL series/mail/0001: a '
				 'backport of f666c92090a4 by jane.doe@kernel.org, '
				 'not its original author kirill.shutemov@linux.'
				 'intel.com (the first Signed-off-by)')

	def test_a_second_or_missing_signoff_fails(self) -> None:
		sob = 'Signed-off-by: Jane Doe <jane.doe@kernel.org>\n'
		self.assertEqual(self.judge(self.damaged(2, sob, sob * 2)).line(),
				 "FAIL series/mail/0002: the sender's Signed-off-"
				 'by (jane.doe@kernel.org) is there 2 times, not '
				 'last')
		self.assertIn('is there 0 times',
			      self.judge(self.damaged(2, sob, '')).detail)

	def test_our_patch_under_another_author_fails(self) -> None:
		mailer = 'X-Mailer: b4 0.12.0\n\n'
		m = self.damaged(2, mailer, f'{mailer}From: Hibernate Lab <{ME}>'
				 '\n\n')
		self.assertEqual(self.judge(m).line(), 'FAIL series/mail/0002: '
				 f'author {ME}, not the sender jane.doe@kernel.org '
				 '(only a backport keeps its author)')

	def test_the_old_placeholder_mails_are_not_the_senders(self) -> None:
		# The CI run's mails (test_data/series/6.12/), from before the
		# sender: the placeholder's.
		m = lab_series.read_mail(next((RUN / 'mails').glob('0001-*.eml')))
		self.assertEqual(self.judge(m).line(), 'FAIL series/mail/0001: '
				 f'From: {ME}, not the sender jane.doe@kernel.org')


if __name__ == '__main__':
	unittest.main()
