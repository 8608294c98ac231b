--TEST--
Native compare-and-delete/-set where the server has them (DELEX/SET IFEQ: Redis >= 8.4; DELIFEQ: Valkey 9.0/9.1): 100 uncontended tryLock()+release() cycles and refresh() send no script (INFO commandstats); the script elsewhere; a refused native command falls back to the script, counted in native_fallbacks
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$port = start_test_redis('046');              // its own server: commandstats are server-wide
$raw = RawConn::tcp('127.0.0.1', $port);
$uri = "redis://127.0.0.1:$port";
$native = server_native_del();                // 'delex', 'delifeq' or '' (the suite's server is the same build)
echo "server: ", $native === '' ? 'script' : $native, " (as its HELLO tells)\n";

function calls(RawConn $raw): array {
    $n = [];
    foreach (explode("\n", $raw->cmd('INFO', 'commandstats')) as $line) {
        if (preg_match('/^cmdstat_([\w|]+):calls=(\d+)/', trim($line), $m)) $n[$m[1]] = (int)$m[2];
    }
    unset($n['info'], $n['config|resetstat']);
    return $n;
}
$scripts = fn (array $n) => ($n['evalsha'] ?? 0) + ($n['eval'] ?? 0);
$ok = fn (bool $v) => $v ? 'yes' : 'NO';

// 1. 100 uncontended cycles, confirmed releases
$d = new DistLock($uri, ['prefix' => 'p046:', 'defer_release' => false, 'timeout' => 10]);
$w = $d->tryLock('warm', 5);                   // connect (HELLO and the scripting probe ride with it),
$w->refresh(5.0);                              // and cache the scripts where they are used
$w->release();
$raw->cmd('CONFIG', 'RESETSTAT');
for ($i = 0; $i < 100; $i++) {
    $l = $d->tryLock("c$i", 5);
    if (!$l || !$l->release()) echo "cycle $i failed\n";
}
$n = calls($raw);
if ($native !== '') {
    echo "100 cycles, no script: ", $ok($scripts($n) === 0), ", $native: ", $n[$native] ?? 0, ", set: ", $n['set'] ?? 0, "\n";
} else {
    echo "100 cycles, one release script each: ", $ok($scripts($n) === 100), ", set: ", $n["set"] ?? 0, "\n";
}

// 2. refresh(): SET IFEQ (Redis >= 8.4, Valkey >= 8.1), else the refresh script
$l = $d->tryLock('r', 5);
$raw->cmd('CONFIG', 'RESETSTAT');
var_dump($l->refresh(9.0));
$n = calls($raw);
$set_ifeq = server_has_set_ifeq();             // Valkey 8.1 has SET IFEQ without DELIFEQ
echo "refresh as the server allows: ", $ok($set_ifeq ? $scripts($n) === 0 && ($n['set'] ?? 0) === 1 : $scripts($n) === 1), "\n";
$pt = $raw->cmd('PTTL', 'p046:r');
echo "extended: ", $ok($pt > 8000 && $pt <= 9000), "\n";
var_dump($l->release());

// 3. releaseAll() and the request end's release (DistLock::endRequest()): one pipeline of
//    native deletes each, or (without them) the multi-release script
foreach (['releaseAll()' => fn ($a, $b) => $d->releaseAll([$a, $b]), 'endRequest()' => fn () => DistLock::endRequest()]
         as $what => $release) {
    $a = $d->tryLock('e1', 5);
    $b = $d->tryLock('e2', 5);
    $raw->cmd('CONFIG', 'RESETSTAT');
    var_dump($release($a, $b));
    $n = calls($raw);
    echo "$what as the server allows: ", $ok($native !== '' ? $scripts($n) === 0 && ($n[$native] ?? 0) === 2
                                                              : $scripts($n) >= 1 && !isset($n['delex']) && !isset($n['delifeq'])), "\n";
    var_dump($raw->cmd('EXISTS', 'p046:e1', 'p046:e2'));
}

// 4. an ACL user whose server has the command but who may not run it: NOPERM, then the
//    script on that connection, counted once (the connection remembers it)
$acl = ['on', '>pw046', 'resetkeys', '~p046:*', 'resetchannels', '-@all', '+set', '+evalsha', '+eval', '+exists',
        '+get', '+pttl', '+pexpire', '+del'];
var_dump($raw->cmd('ACL', 'SETUSER', 'u046', ...$acl));
$u = new DistLock("redis://u046:pw046@127.0.0.1:$port", ['prefix' => 'p046:', 'defer_release' => false, 'timeout' => 10]);
$f0 = $u->stats()['native_fallbacks'];
for ($i = 0; $i < 3; $i++) {
    $l = $u->tryLock("u$i", 5);
    $r1 = $l->refresh(6.0);
    if (!$r1 || !$l->release()) echo "ACL cycle $i failed\n";
}
$fell = $u->stats()['native_fallbacks'] - $f0;
// refused: the delete (NOPERM: no +delex/+delifeq) and, where the server has SET IFEQ, nothing else
// (SET is allowed): one fallback per refused command, once per connection
echo "fallbacks counted: ", $ok($fell === ($native !== '' ? 1 : 0)), " ($fell)\n";
echo "path now: ", preg_match('/\[release_path\] => (.*)/', print_r($u, true), $m) ? $m[1] : '?', "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('046');
?>
--EXPECTF--
server: %s (as its HELLO tells)
100 cycles%s: yes, %s
bool(true)
refresh as the server allows: yes
extended: yes
bool(true)
int(2)
releaseAll() as the server allows: yes
int(0)
int(2)
endRequest() as the server allows: yes
int(0)
string(2) "OK"
fallbacks counted: yes (%d)
path now: script
