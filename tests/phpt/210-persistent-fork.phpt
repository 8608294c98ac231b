--TEST--
persistent and fork(): a child using persistent DistLocks (an inherited live one and a pooled idle one) never writes to the parent's connections; the parent then does 1000 commands with 0 errors
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_210:';
raw_redis_del_prefix($prefix);
$base = lc_own_ports();

// a pooled idle connection ('idle' pool) and a live persistent instance holding a lock
$i = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => 'idle']);
$i->isLocked('x');
unset($i);
$idlePort = lc_ext_ports($base);
$dl = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => true]);
$held = $dl->lock('parent', 60, 1);
$ports = lc_ext_ports($base);
$livePort = array_values(array_diff($ports, $idlePort));
echo "parent connections: ", count($ports), "\n";
$dl->forceRelease('nothing');                  // last command on the live connection: DEL
$i = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => 'idle']);
$i->owner('nothing');                          // last command on the pooled one: GET
unset($i);
$e0 = [client_entry($livePort[0]), client_entry($idlePort[0])];

$pid = fork_child(function () use ($dl, $prefix) {
    ini_set('display_errors', '0');
    $r = [];
    // the inherited live instance, and new instances of both pools (the pooled connection is the parent's)
    $r[] = 'inherited=' . (int)$dl->isLocked('parent');
    $c = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => 'idle']);
    $l = $c->tryLock('child', 5);
    $r[] = 'idle_pool=' . (int)($l !== null && $l->release());
    $d = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => true]);
    $fails = 0;
    for ($k = 0; $k < 50; $k++) {
        $l = $d->tryLock("child:$k", 5);
        $fails += (int)!($l !== null && $l->release());
    }
    $r[] = "child_failures=$fails";
    $r[] = 'parent_lock_busy=' . (int)($d->tryLock('parent', 5) === null);
    raw_redis('SET', $prefix . 'result', implode(' ', $r));
    return 0;                                  // module shutdown in the child frees its pools
});
echo wait_child($pid), "\n";
echo raw_redis('GET', $prefix . 'result'), "\n";

// the parent's connections: same clients, last command unchanged (nothing written by the child)
$e1 = [client_entry($livePort[0]), client_entry($idlePort[0])];
foreach (['live' => 0, 'pooled' => 1] as $what => $k) {
    echo "$what untouched: ", var_export($e0[$k] !== null && $e1[$k] !== null && $e0[$k]['id'] === $e1[$k]['id']
        && $e1[$k]['cmd'] === $e0[$k]['cmd'], true), " (", $e1[$k]['cmd'] ?? '-', ")\n";
}

// 1000 commands on them, 0 errors, no reconnection
$errors = 0;
$s0 = $dl->stats();
$i = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => 'idle']);
for ($k = 0; $k < 250; $k++) {
    try {
        $errors += (int)!$dl->isLocked('parent');
        $l = $i->tryLock('after', 5);
        $errors += (int)!($l !== null && $l->release());
        $errors += (int)$i->isLocked('after');
    } catch (Throwable $t) {
        $errors++;
        echo get_class($t), ': ', $t->getMessage(), "\n";
    }
}
echo "errors after 1000 commands: $errors, connection errors: ", $dl->stats()['connection_errors'] - $s0['connection_errors'], "\n";
echo "same connections: ", var_export(lc_ext_ports($base) == $ports, true), "\n";
var_dump($held->release(), raw_redis('EXISTS', $prefix . 'parent'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_210:');
?>
--EXPECT--
parent connections: 2
exit=0
inherited=1 idle_pool=1 child_failures=0 parent_lock_busy=1
live untouched: true (del)
pooled untouched: true (get)
errors after 1000 commands: 0, connection errors: 0
same connections: true
bool(true)
int(0)
