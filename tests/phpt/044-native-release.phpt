--TEST--
Native compare-and-delete where the server has it (DELEX: Redis >= 8.4; DELIFEQ: Valkey >= 9.0; SET IFEQ), the script elsewhere: release path, waking a waiter, refresh, the watchdog, an ACL without DELIFEQ
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$p = 'phpt_044:';
raw_redis_del_prefix($p);
$native = server_has_native_cad();
$native_path = ['delex' => 'native (DELEX)', 'delifeq' => 'native (DELIFEQ)', '' => 'script'][server_native_del()];
$expect = fn (bool $ok) => $ok ? 'yes' : 'NO';
$path = function (DistLock $d): string {
    preg_match('/\[release_path\] => (.*)/', print_r($d, true), $m);
    return $m[1] ?? '?';
};

// 1. learned by the connection's first call, shown in debug output and counted
$d = new DistLock(test_uri(), ['prefix' => $p, 'defer_release' => false]);
echo "before the first call: ", $path($d), "\n";
$d->isLocked('x');
echo "release path as the server allows: ", $expect($path($d) === $native_path), "\n";
$s = $d->stats();
$l = $d->tryLock('x', 5);
var_dump($l->release(), raw_redis('EXISTS', "{$p}x"));
echo "native_releases as the server allows: ", $expect($d->stats()['native_releases'] - $s['native_releases'] === ($native ? 1 : 0)), "\n";

// 2. compare-and-delete: another owner's key is never deleted
raw_redis('SET', "{$p}y", 'someone-else', 'PX', 5000);
var_dump($d->release('y', 'not-the-owner'), raw_redis('GET', "{$p}y"));

// 3. a waiter blocked in BLPOP is woken by the release at once (the wake after DELIFEQ)
$h = $d->lock('w', 30);
$pid = fork_child(function () use ($p) {
    $w = new DistLock(test_uri(), ['prefix' => $p]);
    $t = microtime(true);
    $got = $w->lock('w', 5, 10);
    return (microtime(true) - $t) < 5 && $got->token() !== '' ? 0 : 1;
});
for ($i = 0; $i < 200 && $d->status('w')['waiters'] === 0; $i++) usleep(10000);
usleep(100000);                                   // inside its BLPOP
$t = microtime(true);
var_dump($h->release());
echo "waiter: ", wait_child($pid), ", woken within 1 s of the release: ", $expect(microtime(true) - $t < 1.0), "\n";

// 4. refresh: compare-and-refresh (SET IFEQ natively)
$l = $d->lock('r', 2);
var_dump($l->refresh(7.0));
$pt = raw_redis('PTTL', "{$p}r");
echo "refreshed to 7 s: ", $expect($pt > 6500 && $pt <= 7000), "\n";
raw_redis('SET', "{$p}r", 'taken-over', 'PX', 5000);
var_dump($l->refresh(9.0), raw_redis('GET', "{$p}r"), raw_redis('PTTL', "{$p}r") <= 5000);

// 5. the watchdog renews (in one pipeline) with the same compare-and-refresh
$wd = new DistLock(test_uri(), ['prefix' => $p, 'watchdog' => true]);
$a = $wd->lock('wa', 0.6);
$b = $wd->lock('wb', 0.6);
usleep(1500000);
var_dump($a->isAcquired(), $b->isAcquired(), $wd->stats()['renewals'] >= 4);
var_dump($a->release(), $b->release());

// 6. an ACL without DELIFEQ: the first release falls back to the script, the connection keeps it
$acl = ['on', '>pw044', 'resetkeys', "~{$p}*", 'resetchannels', '-@all', '+set', '+evalsha', '+eval', '+blpop',
        '+exists', '+del', '+get', '+pttl', '+zcard'];
var_dump(raw_redis('ACL', 'SETUSER', 'phpt_044_nodelifeq', ...$acl));
$u = new DistLock(str_replace('redis://', 'redis://phpt_044_nodelifeq:pw044@', test_uri()), ['prefix' => $p, 'defer_release' => false]);
$s = $u->stats();
foreach (['a1', 'a2'] as $n) {
    $l = $u->tryLock($n, 5);
    var_dump($l->release(), raw_redis('EXISTS', $p . $n));
}
echo "no native release counted: ", $expect($u->stats()['native_releases'] === $s['native_releases']), ", path now: ", $path($u), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis('ACL', 'DELUSER', 'phpt_044_nodelifeq');
raw_redis_del_prefix('phpt_044:');
?>
--EXPECT--
before the first call: not known yet
release path as the server allows: yes
bool(true)
int(0)
native_releases as the server allows: yes
bool(false)
string(12) "someone-else"
bool(true)
waiter: exit=0, woken within 1 s of the release: yes
bool(true)
refreshed to 7 s: yes
bool(false)
string(10) "taken-over"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
string(2) "OK"
bool(true)
int(0)
bool(true)
int(0)
no native release counted: yes, path now: script
