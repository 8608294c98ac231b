--TEST--
lock() when the name is free costs what tryLock() costs: one plain SET NX PX, no script (fencing and fair mode keep their script); a scoped cycle is one round trip plus a write
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$port = start_test_redis('043');
$raw = RawConn::tcp('127.0.0.1', $port);
$uri = "redis://127.0.0.1:$port";

/* Top-level calls since the last reset, by command (scripts' own commands are counted apart, as set/zadd...). */
function calls(RawConn $raw): array {
    $n = [];
    foreach (explode("\n", $raw->cmd('INFO', 'commandstats')) as $line) {
        if (preg_match('/^cmdstat_(\w+):calls=(\d+)/', trim($line), $m) && !in_array($m[1], ['info', 'config'], true)) {
            $n[$m[1]] = (int)$m[2];
        }
    }
    ksort($n);
    return $n;
}
/* What the client sent: scripts run, and SETs outside them (a script that grants runs one SET itself). */
function show(string $what, array $n): void {
    $scripts = ($n['evalsha'] ?? 0) + ($n['eval'] ?? 0);
    echo str_pad($what, 34), "scripts: $scripts, SET: ", ($n['set'] ?? 0), "\n";
}
/* A release is one script, or none where the server has DELEX or DELIFEQ (then one of it). */
$native = server_native_del();
function show_cycle(string $what, array $n, string $native): void {
    $scripts = ($n['evalsha'] ?? 0) + ($n['eval'] ?? 0);
    $ok = $native !== '' ? ($scripts === 0 && ($n[$native] ?? 0) === 1)
                         : ($scripts === 1 && !isset($n['delifeq']) && !isset($n['delex']));
    echo str_pad($what, 34), "release as the server allows: ", $ok ? 'yes' : 'NO ' . json_encode($n), ", SET: ", ($n['set'] ?? 0), "\n";
}

foreach (['default' => [], 'fencing' => ['fencing' => true], 'fair' => ['fair' => true]] as $mode => $opts) {
    $d = new DistLock($uri, ['prefix' => 'p043:', 'defer_release' => false] + $opts);
    $d->tryLock('warm')?->release();                 // connect, load the scripts
    $raw->cmd('CONFIG', 'RESETSTAT');
    $l = $d->lock('x', 5, 2);
    show("$mode lock():", calls($raw));
    $l->release();
}
// the same acquire for lock() and tryLock(), and the cycle's release
$d = new DistLock($uri, ['prefix' => 'p043:', 'defer_release' => false]);
$d->isLocked('warm');                              // connect (a new connection's first call also asks HELLO)
$raw->cmd('CONFIG', 'RESETSTAT');
$d->tryLock('x', 5)->release();
$try = calls($raw);
show_cycle("tryLock() + release():", $try, $native);
$raw->cmd('CONFIG', 'RESETSTAT');
$d->lock('x', 5)->release();
$lock = calls($raw);
show_cycle("lock() + release():", $lock, $native);
echo "lock() + release() sends what tryLock() + release() sends: ", var_export($lock === $try, true), "\n";

// a scoped cycle: the release goes out with the next command, not waited for
$d = new DistLock($uri, ['prefix' => 'p043:']);
$d->isLocked('warm');
$raw->cmd('CONFIG', 'RESETSTAT');
for ($i = 0; $i < 10; $i++) {
    $l = $d->tryLock('s', 5);
    unset($l);
}
$d->owner('s');                                    // a plain GET (isLocked() is a script: every kind)
show("10 scoped cycles + owner():", calls($raw));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('043');
?>
--EXPECT--
default lock():                   scripts: 0, SET: 1
fencing lock():                   scripts: 1, SET: 1
fair lock():                      scripts: 1, SET: 1
tryLock() + release():            release as the server allows: yes, SET: 1
lock() + release():               release as the server allows: yes, SET: 1
lock() + release() sends what tryLock() + release() sends: true
10 scoped cycles + owner():       scripts: 10, SET: 10
