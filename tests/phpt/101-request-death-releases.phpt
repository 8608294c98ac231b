--TEST--
Request death (fatal error, exit(), max_execution_time, memory limit, uncaught exception) releases every lock the request holds
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('proc_open')) die('skip proc_open not available');
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_101:';
raw_redis_del_prefix($prefix);

$deaths = [
    'fatal'     => ['distlock_phpt_no_such_function();', 'Call to undefined function distlock_phpt_no_such_function()'],
    'e_error'   => ['trigger_error("child dies", E_USER_ERROR);', 'Fatal error: child dies'],
    'exit'      => ['exit(4);', null],
    'timeout'   => ['set_time_limit(1); $x = 0; while (true) { $x++; }', 'Maximum execution time of 1 second exceeded'],
    'memory'    => ['ini_set("memory_limit", "32M"); $a = []; for ($i = 0; $i < 200; $i++) { $a[] = str_repeat("x", 1 << 20); }', 'Allowed memory size of'],
    'exception' => ['throw new RuntimeException("child dies");', 'Uncaught RuntimeException: child dies'],
    'end'       => ['', null],
    // control: nothing runs at request end, so the keys must still be there (with a TTL)
    'sigkill'   => ['exec("kill -9 " . getmypid()); sleep(5);', null],
];
$names = ['global', 'static', 'array', 'cycle', 'dropped'];

foreach ($deaths as $mode => [$death, $marker]) {
    $p = var_export($prefix . $mode . ':', true);
    $code = <<<PHP
<?php
\$dl = new DistLock(getenv('DISTLOCK_TEST_REDIS'), ['prefix' => $p]);
\$global = \$dl->lock('global', 60, 1);                  // a global variable
function keep(DistLock \$dl) { static \$s = []; \$s[] = \$dl->lock('static', 60, 1); }
keep(\$dl);                                              // a function's static
\$GLOBALS['arr'][] = \$dl->lock('array', 60, 1);          // a global array
\$o = new stdClass; \$o->self = \$o; \$o->lock = \$dl->lock('cycle', 60, 1);
unset(\$o);                                              // leaked in a garbage cycle
\$fresh = new DistLock(getenv('DISTLOCK_TEST_REDIS'), ['prefix' => $p]);
\$GLOBALS['arr'][] = \$fresh->lock('dropped', 60, 1);
unset(\$fresh);                                          // its DistLock is gone, the Lock lives on
echo "ACQUIRED\\n";
$death
echo "END\\n";
PHP;
    [$rc, $out] = run_php_child($code);
    $acquired = str_contains($out, "ACQUIRED\n");
    $died = $marker === null ? !str_contains($out, 'rror') : str_contains($out, $marker);
    $left = [];
    foreach ($names as $n) {
        $k = $prefix . $mode . ':' . $n;
        $pttl = raw_redis('PTTL', $k);
        $left[] = $pttl === -2 ? 'gone' : ($pttl > 0 ? 'held' : "pttl=$pttl");
    }
    printf("%-9s rc=%s acquired=%d died_as_expected=%d keys: %s\n", $mode, $mode === 'sigkill' ? 'killed' : $rc,
        $acquired, $died, implode(' ', $left));
    if (!$acquired || !$died) {
        echo "child output:\n$out\n";
    }
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_101:');
?>
--EXPECT--
fatal     rc=255 acquired=1 died_as_expected=1 keys: gone gone gone gone gone
e_error   rc=255 acquired=1 died_as_expected=1 keys: gone gone gone gone gone
exit      rc=4 acquired=1 died_as_expected=1 keys: gone gone gone gone gone
timeout   rc=255 acquired=1 died_as_expected=1 keys: gone gone gone gone gone
memory    rc=255 acquired=1 died_as_expected=1 keys: gone gone gone gone gone
exception rc=255 acquired=1 died_as_expected=1 keys: gone gone gone gone gone
end       rc=0 acquired=1 died_as_expected=1 keys: gone gone gone gone gone
sigkill   rc=killed acquired=1 died_as_expected=1 keys: held held held held held
