<?php
/*
 * The checker's self-test: every rule of tests/nemesis/check.php must be able
 * to fail. Each case writes a small fabricated run (nemesis.jsonl and one
 * history file, times in ms on a made-up monotonic clock) into a temporary
 * directory, runs the checker on it with --checks and --json, and compares the
 * verdicts it prints with the ones expected: a breach of each rule under no
 * fault must FAIL that rule (and only the rules it breaks), the same breach
 * inside the window of a fault that documents overlaps must pass and be
 * counted as allowed, and a history that keeps every rule must pass them all.
 *
 *   php selftest.php          prints "ok - CASE" / "not ok - CASE: why", one a case;
 *                             exits 1 when any case is not ok
 */
declare(strict_types=1);

namespace Nemesis\SelfTest;

const MS = 1000000;    // ns per ms
const ALL = ['mutex', 'rw', 'semaphore', 'multi'];

/** A fabricated run: faults and grants, then written out and checked. */
final class Run
{
    private array $hist = [];
    private array $faults = [];
    private int $n = 0;

    public function __construct(private array $prims = ALL) {}

    /** A fault of $type from $s to $e ms, aimed at $workers. */
    public function fault(string $type, int $s, int $e, array $workers = []): self
    {
        $this->faults[] = ['op' => 'fault_end', 'phase' => 1, 'type' => $type, 'target' => ['workers' => $workers],
            's' => $s * MS, 'e' => $e * MS];
        return $this;
    }

    /**
     * One grant held from $s to $e ms by worker $w: $k mutex|exclusive|shared|permits|multi on
     * $names (name => fencing token or null), with $extra acquire fields (ns, hs, pm, lim) and
     * $ops (op records: op, n, f, q, r, v, was) stamped between $s and $e.
     */
    public function grant(string $w, string $k, array $names, int $s, int $e, array $extra = [], array $ops = []): self
    {
        $g = "$w#" . (++$this->n);
        $first = (string) array_key_first($names);
        $acq = ['p' => $w, 'pid' => 1, 'op' => 'acquire', 'g' => $g, 's' => ($s - 1) * MS, 'e' => $s * MS, 'r' => 'ok',
            'tok' => "t$g", 'f' => $names[$first], 'k' => $k, 'n' => $first];
        if ($k === 'multi') {
            $acq += ['ns' => array_keys($names), 'hs' => array_keys($names), 'fs' => $names];
        }
        $this->hist[] = array_replace($acq, $extra);
        $t = $s;
        foreach ($ops as $op) {
            $t++;
            $this->hist[] = $op + ['p' => $w, 'pid' => 1, 'g' => $g, 's' => $t * MS, 'e' => $t * MS, 'r' => 'ok'];
        }
        $this->hist[] = ['p' => $w, 'pid' => 1, 'op' => 'release', 'n' => $first, 'g' => $g, 's' => $e * MS, 'e' => ($e + 1) * MS, 'r' => 'ok'];
        return $this;
    }

    /** Writes the run to $dir, checks it: [exit code, CHECK lines as "fault check" => ok|FAIL, JSON report]. */
    public function check(string $dir): array
    {
        @mkdir($dir, 0777, true);
        $end = 0;
        foreach ($this->hist as $h) {
            $end = max($end, $h['e']);
        }
        foreach ($this->faults as $f) {
            $end = max($end, $f['e']);
        }
        $end += 10 * MS;
        $nem = [
            ['t' => 0, 'op' => 'run', 'lib' => 'distlock', 'seed' => 1, 'seconds' => 0, 'workers' => 4, 'lease' => 2.0, 'wait' => 2.0,
             'timeout' => 1.0, 'fenced' => true, 'tail' => 3.5, 'load' => 0.0, 'ncpu' => 2, 'primitives' => $this->prims, 'break' => ''],
            ['t' => 0, 'op' => 'phase', 'phase' => 1, 'name' => 'single', 'kind' => 'single', 'primitives' => $this->prims, 's' => 0],
        ];
        foreach ($this->faults as $f) {
            $nem[] = ['t' => $f['e']] + $f;
        }
        $nem[] = ['t' => $end, 'op' => 'stop', 'phase' => 1, 's' => $end];
        $nem[] = ['t' => $end, 'op' => 'stopped', 'phase' => 1, 's' => $end];
        $nem[] = ['t' => $end, 'op' => 'phase_end', 'phase' => 1, 'drain_s' => 0, 's' => $end];
        file_put_contents("$dir/nemesis.jsonl", implode("\n", array_map('json_encode', $nem)) . "\n");
        file_put_contents("$dir/history-1.1.jsonl", implode("\n", array_map('json_encode', $this->hist)) . "\n");
        $out = [];
        exec(escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg(__DIR__ . '/check.php') . ' ' . escapeshellarg($dir)
            . ' --checks --margin=3 --json=' . escapeshellarg("$dir/report.json") . ' 2>&1', $out, $rc);
        $checks = [];
        foreach ($out as $l) {
            if (preg_match('/^CHECK (\S+) (\S+) (ok|FAIL)/', $l, $m)) {
                $checks["$m[1] $m[2]"] = $m[3];
            }
        }
        return [$rc, $checks, json_decode((string) @file_get_contents("$dir/report.json"), true), implode("\n", $out)];
    }
}

/** A run whose every primitive has a clean grant (so that no rule is vacuous and no primitive stalls). */
function clean(array $prims = ALL): Run
{
    $r = new Run($prims);
    $r->grant('1.1', 'mutex', ['a' => 1], 10, 40, [], [['op' => 'read', 'n' => 'a', 'f' => 1, 'q' => 1, 'v' => '0'],
        ['op' => 'write', 'n' => 'a', 'f' => 1, 'q' => 2, 'v' => '0']]);
    $r->grant('1.2', 'multi', ['a' => 2, 'b' => 1], 50, 80, [], [['op' => 'read', 'n' => 'a', 'f' => 2, 'q' => 3, 'v' => '1'],
        ['op' => 'write', 'n' => 'a', 'f' => 2, 'q' => 4, 'v' => '1']]);
    $r->grant('1.1', 'mutex', ['b' => 2], 90, 120);
    // two readers side by side, then a writer
    $r->grant('1.3', 'shared', ['r' => null], 10, 60, [], [['op' => 'read', 'n' => 'r', 'f' => null, 'q' => 1, 'v' => '0'],
        ['op' => 'reread', 'n' => 'r', 'f' => null, 'q' => 2, 'v' => '0', 'was' => '0']]);
    $r->grant('1.4', 'shared', ['r' => null], 20, 70);
    $r->grant('1.3', 'exclusive', ['r' => 1], 80, 100, [], [['op' => 'read', 'n' => 'r', 'f' => 1, 'q' => 3, 'v' => '0'],
        ['op' => 'write', 'n' => 'r', 'f' => 1, 'q' => 4, 'v' => '0']]);
    // 3 permits of 3 at once: at the limit, not over it
    $r->grant('1.5', 'permits', ['s' => null], 10, 60, ['pm' => 2, 'lim' => 3]);
    $r->grant('1.6', 'permits', ['s' => null], 20, 70, ['pm' => 1, 'lim' => 3]);
    $r->grant('1.5', 'permits', ['s' => null], 65, 90, ['pm' => 2, 'lim' => 3]);
    return $r;
}

$cases = [
    // name => [run, checks expected to FAIL ("fault check"), a test of the JSON report or null]
    'clean history: every rule holds' => [clean(), [], null],
    'writer beside a reader' => [clean()->grant('1.7', 'shared', ['r2' => null], 200, 300)
        ->grant('1.8', 'exclusive', ['r2' => 5], 250, 350), ['none rw'], null],
    'reader beside a writer' => [clean()->grant('1.8', 'exclusive', ['r2' => 5], 200, 300)
        ->grant('1.7', 'shared', ['r2' => null], 250, 350), ['none rw'], null],
    'writer beside a writer' => [clean()->grant('1.7', 'exclusive', ['r2' => 4], 200, 300)
        ->grant('1.8', 'exclusive', ['r2' => 5], 250, 350), ['none rw'], null],
    "a reader's value changed under its shared lease" => [clean()->grant('1.7', 'shared', ['r2' => null], 200, 300, [], [
        ['op' => 'read', 'n' => 'r2', 'f' => null, 'q' => 1, 'v' => '3'],
        ['op' => 'reread', 'n' => 'r2', 'f' => null, 'q' => 3, 'v' => '4', 'was' => '3']]), ['none rw'], null],
    'more permits than the limit' => [clean()->grant('1.7', 'permits', ['s2' => null], 200, 300, ['pm' => 2, 'lim' => 3])
        ->grant('1.8', 'permits', ['s2' => null], 250, 350, ['pm' => 2, 'lim' => 3]), ['none permits'], null],
    'a multi-lock holding fewer names than it asked' => [clean()->grant('1.7', 'multi', ['c' => 3, 'd' => 1], 200, 300,
        ['ns' => ['c', 'd', 'e']]), ['none multi'], null],
    'a multi-lock member beside a mutex holder' => [clean()->grant('1.7', 'multi', ['c' => 3, 'd' => 1], 200, 300)
        ->grant('1.8', 'mutex', ['d' => 2], 250, 350), ['none exclusion', 'none multi'], null],
    'a mutex holder beside a mutex holder' => [clean()->grant('1.7', 'mutex', ['c' => 3], 200, 300)
        ->grant('1.8', 'mutex', ['c' => 4], 250, 350), ['none exclusion'], null],
    "a writer's stale fencing token accepted" => [clean()
        ->grant('1.7', 'exclusive', ['r2' => 5], 200, 240, [], [['op' => 'write', 'n' => 'r2', 'f' => 5, 'q' => 1, 'v' => '0']])
        ->grant('1.8', 'exclusive', ['r2' => 4], 250, 300, [], [['op' => 'write', 'n' => 'r2', 'f' => 4, 'q' => 2, 'v' => '1']]),
        ['none fencing'], null],
    "a multi-lock member's stale fencing token accepted" => [clean()
        ->grant('1.7', 'mutex', ['c' => 5], 200, 240, [], [['op' => 'write', 'n' => 'c', 'f' => 5, 'q' => 1, 'v' => '0']])
        ->grant('1.8', 'multi', ['c' => 4, 'd' => 1], 250, 300, [], [['op' => 'write', 'n' => 'c', 'f' => 4, 'q' => 2, 'v' => '1']]),
        ['none fencing'], null],
    'a lost update by a fenced writer' => [clean()->grant('1.7', 'exclusive', ['r2' => 5], 200, 240, [],
        [['op' => 'write', 'n' => 'r2', 'f' => 5, 'q' => 1, 'v' => '7', 'r' => 'lost']]), ['none fencing'], null],
    'no semaphore grant after a fault' => [(new Run(ALL))->fault('server-pause', 100, 200)
        ->grant('1.1', 'mutex', ['a' => 1], 300, 400)->grant('1.2', 'shared', ['r' => null], 300, 400)
        ->grant('1.3', 'multi', ['b' => 1, 'c' => 1], 300, 400), ['server-pause liveness'],
        fn ($j) => ($j['rows']['server-pause']['kinds']['semaphore']['stalled'] ?? 0) === 1 ? '' : 'semaphore not counted stalled'],
    'a writer beside a reader under a client pause is allowed' => [clean()->fault('client-pause', 150, 400, ['1.7'])
        ->grant('1.7', 'shared', ['r2' => null], 200, 300)->grant('1.8', 'exclusive', ['r2' => 5], 250, 350)
        ->grant('1.5', 'permits', ['s' => null], 420, 430, ['pm' => 1, 'lim' => 3])->grant('1.1', 'mutex', ['a' => 9], 420, 430)
        ->grant('1.2', 'multi', ['c' => 9, 'd' => 9], 440, 450)->grant('1.3', 'shared', ['r' => null], 420, 430), [],
        fn ($j) => ($j['rows']['client-pause']['kinds']['rw']['overlap_allowed'] ?? 0) === 1 ? '' : 'overlap not counted as allowed'],
    'permits over the limit after a restart without persistence are allowed' => [clean()->fault('restart-volatile', 150, 160)
        ->grant('1.7', 'permits', ['s2' => null], 200, 300, ['pm' => 2, 'lim' => 3])
        ->grant('1.8', 'permits', ['s2' => null], 250, 350, ['pm' => 2, 'lim' => 3])
        ->grant('1.1', 'mutex', ['a' => 9], 420, 430)->grant('1.2', 'multi', ['c' => 9, 'd' => 9], 440, 450)
        ->grant('1.3', 'shared', ['r' => null], 420, 430), [],
        fn ($j) => ($j['rows']['restart-volatile']['kinds']['semaphore']['overlap_allowed'] ?? 0) === 1 ? '' : 'not counted as allowed'],
];

$tmp = sys_get_temp_dir() . '/nemesis-selftest-' . getmypid();
$bad = 0;
$i = 0;
foreach ($cases as $name => [$run, $fail, $test]) {
    [$rc, $checks, $json, $out] = $run->check("$tmp/" . (++$i));
    $why = [];
    if ($checks === []) {
        $why[] = 'the checker printed no CHECK line';
    }
    foreach ($checks as $c => $v) {
        $want = in_array($c, $fail, true) ? 'FAIL' : 'ok';
        if ($v !== $want) {
            $why[] = "$c: $v, expected $want";
        }
    }
    foreach ($fail as $c) {
        if (!isset($checks[$c])) {
            $why[] = "$c: not checked";
        }
    }
    if (($rc !== 0) !== ($fail !== [])) {
        $why[] = "exit status $rc";
    }
    if ($test !== null && ($t = $test($json ?? [])) !== '') {
        $why[] = $t;
    }
    if ($why === []) {
        echo "ok - $name\n";
    } else {
        $bad++;
        echo "not ok - $name: " . implode('; ', $why) . "\n";
        fwrite(STDERR, preg_replace('/^/m', '    ', $out) . "\n");
    }
}
exec('rm -rf ' . escapeshellarg($tmp));
exit($bad > 0 ? 1 : 0);
