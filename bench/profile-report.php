<?php
/*
 * bench/profile-report.php — bench/profile's arithmetic: reads the callgrind
 * and strace outputs it left in DIR and prints the markdown report.
 *
 *   php bench/profile-report.php DIR N1 N2 NS
 *
 * DIR holds cg.IMPL.N1 and cg.IMPL.N2 (callgrind, Ir only) and st.IMPL.0 and
 * st.IMPL.NS (strace -f -c) for IMPL in distlock, phpredis, floor, and a file
 * "header" printed first. Every figure is a difference between the two runs
 * of one implementation divided by the difference of their cycles, so that
 * start-up, connect, warm-up and exit cancel out.
 *
 * Instructions by cause: callgrind's own file is parsed here (its self cost
 * per function and the inclusive cost of every caller -> callee edge), not
 * callgrind_annotate's output, which (valgrind 3.19) lists a function called
 * from a file other than its own twice, once as "???:name". Each cause is a
 * set of root functions; every instruction goes to the cause of the innermost
 * root on its call path, "everything else" when there is none: a nested root
 * (the reply wait inside the reply reading, the clock read inside the wait,
 * the lease freed inside the registry's release) takes its cost out of the
 * outer one, and nothing is counted twice. Callgrind keeps a call graph, not a
 * tree: where a function that is no root is called from several causes (malloc,
 * memcpy, __tls_get_addr) its callees' cost is split as the callers' edges
 * are (gprof's rule), which is exact for the function's own inclusive cost.
 * A static function the compiler inlined has no cost of its own: it is its
 * caller's (count_native_release, resp_put, poll_input, the ZPP macros).
 */
[$dir, $n1, $n2, $ns] = array_slice($argv, 1) + [null, null, null, null];
if (!is_dir((string)$dir) || (int)$n2 <= (int)$n1 || (int)$ns <= 0) {
    fwrite(STDERR, "usage: php bench/profile-report.php DIR N1 N2 NS\n");
    exit(2);
}
[$n1, $n2, $ns] = [(int)$n1, (int)$n2, (int)$ns];
const IMPLS = ['distlock' => 'distlock', 'phpredis' => 'phpredis lock', 'floor' => 'floor (2 × PING)'];

/*
 * The causes: [label, roots (regular expressions on whole function names)].
 * Order matters only for a function two patterns match (the first wins).
 */
const CAUSES = [
    'distlock' => [
        'args'     => ['argument parsing and validation (glue)', ['php_distlock_resolve_ttl_wait', 'php_distlock_check_name',
                                                               'zend_parse_parameters.*', 'zend_parse_arg_.*', 'php_distlock_this_client']],
        'encode'   => ['command encoding and write (`send_cmds`)', ['send_cmds']],
        'reply'    => ['reply reading and parsing (`read_reply`, `conn_recv`; hiredis reader, reply conversion)', ['read_reply', 'conn_recv']],
        'idle'     => ['idle/fork check before each call (`dl_conn_check_idle`: poll(0))', ['dl_conn_check_idle']],
        'wait'     => ['the reply wait (`dl_platform_poll`: ppoll)', ['dl_platform_poll']],
        'token'    => ['owner token (`dl_token_generate`: getrandom + hex)', ['dl_token_generate']],
        'lease'    => ['lease block (`dl_lease_new`/`_free`/`_dup`: key, 10 companion keys, slot)', ['dl_lease_new', 'dl_lease_free', 'dl_lease_dup']],
        'handle'   => ['handle objects (Lock create/free, `zend_objects_store_del`)', ['php_distlock_lock_create', 'php_distlock_lock_create_view',
                                                                               'lock_create_object', 'lock_free', 'zend_objects_store_del']],
        'registry' => ['the registry (held entry, add/find/forget, watch)', ['php_distlock_registry_.*', 'php_distlock_held_new',
                                                                        'php_distlock_held_release_ref', 'php_distlock_held_done', 'hold', 'php_distlock_watch']],
        'obs'      => ['observers and counters (`dl_obs_*`, `*stats*`)', ['dl_obs_.*', 'php_distlock_obs_.*', 'count_native_release', '.*stats.*']],
        'clock'    => ['clock reads and the call bound (`dl_clock_*`, `dl_call_bound_*`, `bound_begin*`)', ['dl_clock_.*', 'dl_call_bound_.*',
                                                                                              'clock_gettime.*', 'bound_begin_lease', 'bound_begin']],
    ],
    // phpredis and the floor: the same library, the same causes where it has them
    'phpredis' => [
        'args'     => ['argument parsing (`zend_parse_parameters`, inside the command builders)', ['zend_parse_parameters.*', 'zend_parse_arg_.*']],
        'encode'   => ['command encoding (`redis_*_cmd`, `redis_cmd_*`)', ['redis_set_cmd', 'redis_eval_cmd', 'redis_empty_cmd', 'redis_cmd_.*', 'redis_.*_cmd', 'redis_spprintf']],
        'write'    => ['write (`redis_sock_write`: php stream write)', ['redis_sock_write']],
        'reply'    => ['reply reading and parsing (`redis_read_*`, `redis_*_response`, `redis_sock_read*`/`_gets`)',
                       ['redis_read_.*', 'redis_boolean_response.*', 'redis_ping_response', 'redis_string_response', 'redis_.*_response',
                        'redis_sock_read.*', 'redis_sock_gets']],
        'idle'     => ['EOF check before each write and read (`redis_check_eof`: poll(0) + recv MSG_PEEK)', ['redis_check_eof']],
        'token'    => ['owner token: `random_bytes()` (`php_random_bytes` and its caller; `bin2hex` is in php\'s stripped code, counted below)',
                       ['php_random_bytes', 'caller:php_random_bytes']],
    ],
];

/** callgrind file -> ['self' => [fn => Ir], 'edge' => [caller => [callee => [calls, Ir]]], 'total' => Ir,
 *  'obj' => [fn => the basename of its object file]] */
function cg_parse(string $file): array
{
    $ids = ['fn' => [], 'fl' => [], 'ob' => []];
    $self = []; $edge = []; $total = 0; $obj = [];
    $fn = $cfn = $ob = null; $calls = 0;
    $name = function (string $kind, string $v) use (&$ids): string {
        if (preg_match('/^\((\d+)\)(?: (.*))?$/', $v, $m)) {
            if (isset($m[2])) $ids[$kind][$m[1]] = $m[2];
            return $ids[$kind][$m[1]] ?? "?$m[1]";
        }
        return $v;
    };
    $h = fopen($file, 'r') ?: throw new RuntimeException("cannot read $file");
    while (($l = fgets($h)) !== false) {
        $l = rtrim($l, "\n");
        if ($l === '') continue;
        $c = $l[0];
        if (($c >= '0' && $c <= '9') || $c === '+' || $c === '-' || $c === '*') {   // a cost line: "position Ir"
            $sp = strpos($l, ' ');
            $cost = $sp === false ? 0 : (int)substr($l, $sp + 1);
            if ($calls > 0) {                                   // the inclusive cost of the call just named
                if ($cfn !== $fn) {                             // recursion: already in the caller's cost
                    $edge[$fn][$cfn][0] = ($edge[$fn][$cfn][0] ?? 0) + $calls;
                    $edge[$fn][$cfn][1] = ($edge[$fn][$cfn][1] ?? 0) + $cost;
                }
                $calls = 0;
            } else {
                $self[$fn] = ($self[$fn] ?? 0) + $cost;
                $total += $cost;
            }
            continue;
        }
        $eq = strpos($l, '=');
        if ($eq === false) continue;
        $k = substr($l, 0, $eq);
        $v = substr($l, $eq + 1);
        switch ($k) {
            case 'fn': $fn = $name('fn', $v); $obj[$fn] ??= basename((string)$ob); break;
            case 'cfn': $cfn = $name('fn', $v); break;
            case 'fl': case 'fi': case 'fe': case 'cfi': case 'cfl': $name('fl', $v); break;
            case 'ob': $ob = $name('ob', $v); break;
            case 'cob': $name('ob', $v); break;
            case 'calls': $calls = max(1, (int)$v); break;
        }
    }
    fclose($h);
    return ['self' => $self, 'edge' => $edge, 'total' => $total, 'obj' => $obj];
}

/** Per cycle: (b - a) / d for self costs and edges (an edge that shrank counts as 0). */
function cg_per_cycle(array $a, array $b, int $d): array
{
    $self = [];
    foreach ($b['self'] + $a['self'] as $f => $_) {
        $v = (($b['self'][$f] ?? 0) - ($a['self'][$f] ?? 0)) / $d;
        if ($v != 0) $self[$f] = $v;
    }
    $edge = [];
    foreach ($b['edge'] as $f => $to) {
        foreach ($to as $g => [$n, $c]) {
            $v = ($c - ($a['edge'][$f][$g][1] ?? 0)) / $d;
            $k = ($n - ($a['edge'][$f][$g][0] ?? 0)) / $d;
            if ($v > 0) $edge[$f][$g] = [$k, $v];
        }
    }
    return ['self' => $self, 'edge' => $edge, 'total' => ($b['total'] - $a['total']) / $d, 'obj' => $b['obj'] + $a['obj']];
}

/** Inclusive cost of f in a per-cycle profile (self + its calls). */
function incl(array $p, string $f): float
{
    $s = $p['self'][$f] ?? 0;
    foreach ($p['edge'][$f] ?? [] as [$n, $c]) $s += $c;
    return $s;
}

/** The cause of a function that is a root, or null. A root "caller:NAME" is any caller of NAME
 *  (php's random_bytes(), whose name its stripped binary lost, by the php_random_bytes it calls). */
function root_of(string $f, array $causes, array $p): ?string
{
    foreach ($causes as $id => [, $roots]) {
        foreach ($roots as $re) {
            if (str_starts_with($re, 'caller:') ? isset($p['edge'][$f][substr($re, 7)]) : preg_match('/^(?:' . $re . ')$/', $f)) return $id;
        }
    }
    return null;
}

/**
 * Attribution: [cause => Ir per cycle] ('else' for the rest) and, per
 * function, its self cost attributed to 'else' (for the listing below).
 */
function attribute(array $p, array $causes): array
{
    $callers = [];
    foreach ($p['edge'] as $f => $to) foreach ($to as $g => [, $c]) $callers[$g][$f] = $c;
    $fns = array_keys($p['self'] + $p['edge'] + $callers);
    $share = [];   // fn => [cause => fraction]
    foreach ($fns as $f) $share[$f] = ['else' => 1.0];
    $roots = [];
    foreach ($fns as $f) if (($r = root_of($f, $causes, $p)) !== null) { $roots[$f] = $r; $share[$f] = [$r => 1.0]; }
    for ($it = 0; $it < 200; $it++) {   // to a fixed point (call cycles of the engine converge)
        $moved = 0.0;
        foreach ($fns as $f) {
            if (isset($roots[$f]) || empty($callers[$f])) continue;
            $sum = array_sum($callers[$f]);
            $new = [];
            foreach ($callers[$f] as $c => $w) foreach ($share[$c] as $k => $x) $new[$k] = ($new[$k] ?? 0) + $x * $w / $sum;
            foreach ($new + $share[$f] as $k => $_) $moved += abs(($new[$k] ?? 0) - ($share[$f][$k] ?? 0));
            $share[$f] = $new;
        }
        if ($moved < 1e-9) break;
    }
    $by = array_fill_keys(array_merge(array_keys($causes), ['else']), 0.0);
    $else = [];
    foreach ($p['self'] as $f => $s) {
        foreach ($share[$f] as $k => $x) $by[$k] += $s * $x;
        if (($share[$f]['else'] ?? 0) > 0) $else[$f] = $s * $share[$f]['else'];
    }
    arsort($else);
    return [$by, $else];
}

/** Raw inclusive sum of a cause's roots (nested roots counted again): the annotate view. */
function roots_inclusive(array $p, array $roots): float
{
    $s = 0;
    foreach (array_keys($p['self'] + $p['edge']) as $f) {
        if (root_of($f, [['', $roots]], $p) !== null) $s += incl($p, $f);
    }
    return $s;
}

/** strace -c file -> [syscall => calls] */
function st_parse(string $file): array
{
    $out = [];
    foreach (file($file, FILE_IGNORE_NEW_LINES) ?: [] as $l) {
        $w = preg_split('/\s+/', trim($l));
        if (count($w) >= 5 && is_numeric($w[0]) && preg_match('/^\d+$/', $w[3]) && $w[count($w) - 1] !== 'total') $out[$w[count($w) - 1]] = (int)$w[3];
    }
    return $out;
}

$fmt = fn (float $v): string => number_format($v, 0);
$prof = [];
foreach (IMPLS as $impl => $_) {
    $prof[$impl] = cg_per_cycle(cg_parse("$dir/cg.$impl.$n1"), cg_parse("$dir/cg.$impl.$n2"), $n2 - $n1);
}
echo is_file("$dir/header") ? file_get_contents("$dir/header") : '';

echo "\n### Instructions per cycle (callgrind, user space, (Ir($n2) − Ir($n1)) / " . ($n2 - $n1) . ")\n\n";
echo "| implementation | instructions / cycle | − floor | ÷ phpredis lock |\n| --- | ---: | ---: | ---: |\n";
foreach (IMPLS as $impl => $label) {
    $t = $prof[$impl]['total'];
    printf("| %s | %s | %s | %.2f |\n", $label, $fmt($t), $impl === 'floor' ? '—' : $fmt($t - $prof['floor']['total']), $t / $prof['phpredis']['total']);
}

// by cause, distlock beside the phpredis lock where the cause is shared
/** 'everything else' split by the object its functions are in: else:ext, else:lib, else:engine */
function split_else(array $by, array $else, array $obj): array
{
    foreach ($else as $f => $v) {
        $o = $obj[$f] ?? '';
        $k = preg_match('/^php/', $o) ? 'engine' : (preg_match('/^(distlock|redis|igbinary)\.so$/', $o) ? 'ext' : 'lib');
        $by["else:$k"] = ($by["else:$k"] ?? 0) + $v;
    }
    unset($by['else']);
    return $by;
}
[$dby, $delse] = attribute($prof['distlock'], CAUSES['distlock']);
[$pby, $pelse] = attribute($prof['phpredis'], CAUSES['phpredis']);
[$fby, $felse] = attribute($prof['floor'], CAUSES['phpredis']);
$dby = split_else($dby, $delse, $prof['distlock']['obj']);
$pby = split_else($pby, $pelse, $prof['phpredis']['obj']);
$fby = split_else($fby, $felse, $prof['floor']['obj']);
$rows = [   // [label, distlock causes, phpredis causes]
    ['argument parsing and validation', ['args'], ['args']],
    ['command encoding and write', ['encode'], ['encode', 'write']],
    ['reply reading and parsing (without the wait)', ['reply'], ['reply']],
    ['waits, user-space side: idle/EOF check before each command', ['idle'], ['idle']],
    ['waits, user-space side: the reply wait (`dl_platform_poll`; phpredis\'s poll() is inside its reply reading)', ['wait'], []],
    ['owner token', ['token'], ['token']],
    ['lease block (without the token)', ['lease'], []],
    ['handle objects', ['handle'], []],
    ['the registry', ['registry'], []],
    ['observers and counters', ['obs'], []],
    ['clock reads and the call bound', ['clock'], []],
    ['everything else, the extension\'s own code: lock logic, scripts, retry/pending wrappers (phpredis: its method glue)', ['else:ext'], ['else:ext']],
    ['everything else, libc and ld.so called from it (malloc, free, memcpy, `__tls_get_addr`)', ['else:lib'], ['else:lib']],
    ['everything else, the PHP engine: loop, closure, method calls (phpredis: the recipe\'s PHP, its arrays, `bin2hex`)', ['else:engine'], ['else:engine']],
];
$sum = fn (array $by, array $ids) => array_sum(array_map(fn ($k) => $by[$k] ?? 0, $ids));
$signed = fn (float $v): string => (round($v) < 0 ? '-' : '+') . number_format(abs($v), 0);
echo "\n### By cause (instructions per cycle; each counted once: a nested cause's cost is out of the outer one)\n\n";
echo "| cause | distlock | phpredis lock | distlock − phpredis | floor |\n| --- | ---: | ---: | ---: | ---: |\n";
foreach ($rows as [$label, $dids, $pids]) {
    $d = $sum($dby, $dids);
    $p = $pids ? $sum($pby, $pids) : 0.0;
    $f = $pids ? $sum($fby, $pids) : 0.0;
    printf("| %s | %s | %s | %s | %s |\n", $label, $fmt($d), $pids ? $fmt($p) : '—', $signed($d - $p), $pids ? $fmt($f) : '—');
}
printf("| **total** | **%s** | **%s** | **%s** | **%s** |\n", $fmt(array_sum($dby)), $fmt(array_sum($pby)), $signed(array_sum($dby) - array_sum($pby)), $fmt(array_sum($fby)));

echo "\n#### distlock's causes: their roots, inclusive (as `callgrind_annotate --inclusive=yes` counts them, nested roots again) and as attributed\n\n";
echo "| cause | roots | roots' inclusive sum | attributed |\n| --- | --- | ---: | ---: |\n";
foreach (CAUSES['distlock'] as $id => [$label, $roots]) {
    printf("| %s | `%s` | %s | %s |\n", $label, implode('`, `', $roots), $fmt(roots_inclusive($prof['distlock'], $roots)), $fmt($dby[$id]));
}

// functions worth seeing, inclusive per cycle
$show = function (array $p, array $fns): string {
    $cells = [];
    foreach ($fns as $f) {
        $v = incl($p, $f);
        $calls = 0;
        foreach ($p['edge'] as $to) $calls += $to[$f][0] ?? 0;
        if ($v > 0) $cells[] = sprintf('`%s` %s (%s×)', $f, number_format($v, 0), rtrim(rtrim(number_format($calls, 2), '0'), '.'));
    }
    return implode(', ', $cells);
};
echo "\n#### Inclusive costs of named functions (instructions per cycle; calls per cycle)\n\n";
echo "| implementation | functions |\n| --- | --- |\n";
echo '| distlock | ' . $show($prof['distlock'], ['zim_DistLock_tryLock', 'zim_DistLock_Lock_release', 'dl_lock_acquire', 'dl_lock_release',
    'conn_call', 'send_cmds', 'read_reply', 'dl_lease_new', 'dl_token_generate', 'malloc', 'free', 'calloc', '__memcpy_avx_unaligned_erms',
    '__tls_get_addr', 'dl_proc_pid', 'dl_clock_now_ns', 'conn_caps']) . " |\n";
echo '| phpredis lock | ' . $show($prof['phpredis'], ['zim_Redis_set', 'zim_Redis_evalsha', 'redis_set_cmd', 'redis_eval_cmd',
    'redis_sock_write', 'redis_check_eof', 'redis_boolean_response', 'redis_read_raw_variant_reply', 'zend_parse_parameters', 'php_random_bytes']) . " |\n";
echo '| floor | ' . $show($prof['floor'], ['zim_Redis_ping', 'redis_sock_write', 'redis_check_eof', 'redis_read_reply_type', 'redis_sock_read',
    'redis_string_response', 'redis_ping_response']) . " |\n";

echo "\n#### \"Everything else\", its largest parts (self cost attributed to no cause; `0x…`: php's stripped binary)\n\n";
echo "| implementation | functions (instructions per cycle) |\n| --- | --- |\n";
foreach (['distlock' => $delse, 'phpredis' => $pelse] as $impl => $else) {
    $top = array_slice(array_filter($else, fn ($v) => $v >= 15), 0, 16, true);
    echo '| ' . IMPLS[$impl] . ' | ' . implode(', ', array_map(fn ($f, $v) => sprintf('`%s` %d', $f, round($v)), array_keys($top), $top)) . " |\n";
}

// syscalls
$st = [];
$names = [];
foreach (IMPLS as $impl => $_) {
    $a = st_parse("$dir/st.$impl.0");
    $b = st_parse("$dir/st.$impl.$ns");
    foreach ($b + $a as $s => $_) {
        $v = (($b[$s] ?? 0) - ($a[$s] ?? 0)) / $ns;
        if (abs($v) >= 0.005) { $st[$impl][$s] = $v; $names[$s] = max($names[$s] ?? 0, $v); }
    }
}
arsort($names);
echo "\n### System calls per cycle (strace -f -c, (calls($ns cycles) − calls(0)) / $ns)\n\n";
echo '| syscall | ' . implode(' | ', IMPLS) . " |\n| --- |" . str_repeat(' ---: |', count(IMPLS)) . "\n";
foreach ($names as $s => $_) {
    echo "| $s | " . implode(' | ', array_map(fn ($i) => isset($st[$i][$s]) ? rtrim(rtrim(number_format($st[$i][$s], 2), '0'), '.') : '—', array_keys(IMPLS))) . " |\n";
}
echo '| **total** | ' . implode(' | ', array_map(fn ($i) => '**' . rtrim(rtrim(number_format(array_sum($st[$i] ?? []), 2), '0'), '.') . '**', array_keys(IMPLS))) . " |\n";
