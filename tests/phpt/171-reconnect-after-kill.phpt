--TEST--
Connection killed by the server (CLIENT KILL): status reads and releases retry on a fresh connection (with AUTH and SELECT again); an acquire is never reported as "not acquired"
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
foreach (['DISTLOCK_TEST_REDIS_PORT', 'DISTLOCK_TEST_REDIS_AUTH_PORT', 'DISTLOCK_TEST_REDIS_PASSWORD'] as $v) {
    if ((string)getenv($v) === '') die("skip $v is not set");
}
?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_171:';
$pw = env_or_fail('DISTLOCK_TEST_REDIS_PASSWORD');
$setups = [
    // {port} is replaced (not sprintf: the encoded password holds "%40")
    'plain db3' => [(int)env_or_fail('DISTLOCK_TEST_REDIS_PORT'), "redis://127.0.0.1:{port}/3", RawConn::main(3)],
    'auth db2'  => [(int)env_or_fail('DISTLOCK_TEST_REDIS_AUTH_PORT'), "redis://:" . rawurlencode($pw) . "@127.0.0.1:{port}/2", RawConn::auth(2)],
];

/* Kills the extension's connection(s) to $port (found by their local ports); returns how many. */
function kill_ext_conns(int $port, array $before, RawConn $raw): int {
    $n = 0;
    foreach (array_diff(own_tcp_ports_to($port), $before) as $lp) {
        $r = $raw->cmd('CLIENT', 'KILL', 'ADDR', "127.0.0.1:$lp");
        $n += is_int($r) ? $r : 0;       // the number of clients killed
    }
    return $n;
}

foreach ($setups as $label => [$port, $fmt, $raw]) {
    echo "== $label\n";
    foreach (($raw->cmd('KEYS', $prefix . '*') ?: []) as $k) { $raw->cmd('DEL', $k); }
    $before = own_tcp_ports_to($port);
    $dl = new DistLock(str_replace('{port}', (string)$port, $fmt), ['prefix' => $prefix]);
    $held = $dl->lock('held', 30, 1);
    var_dump($raw->cmd('GET', $prefix . 'held') === $held->token());

    // status reads are retried on a fresh connection
    echo "killed: ", kill_ext_conns($port, $before, $raw), "\n";
    var_dump($dl->isLocked('held'), $dl->isLocked('free'));
    echo "killed: ", kill_ext_conns($port, $before, $raw), "\n";
    var_dump($held->isAcquired(), $held->remainingLifetime() > 25.0);
    echo "killed: ", kill_ext_conns($port, $before, $raw), "\n";
    var_dump($held->refresh(20), $raw->cmd('PTTL', $prefix . 'held') <= 20000);

    // an acquire on a dead connection: a Lock or a ConnectionException, never null
    echo "killed: ", kill_ext_conns($port, $before, $raw), "\n";
    try {
        $l = $dl->tryLock('new', 30);
        echo $l === null ? "tryLock: NULL\n" : "tryLock: consistent=" . (int)($raw->cmd('GET', $prefix . 'new') === $l->token()) . "\n";
        unset($l);
    } catch (DistLock\ConnectionException $e) {
        echo "tryLock: consistent=1\n";
    }
    echo "key 'new' without TTL: ", (int)($raw->cmd('PTTL', $prefix . 'new') === -1), "\n";
    $raw->cmd('DEL', $prefix . 'new');
    $l = $dl->tryLock('new', 30);
    var_dump($l !== null && $raw->cmd('GET', $prefix . 'new') === $l->token());

    // release is retried too
    echo "killed: ", kill_ext_conns($port, $before, $raw), "\n";
    var_dump($l->release(), $raw->cmd('EXISTS', $prefix . 'new'));
    echo "killed: ", kill_ext_conns($port, $before, $raw), "\n";
    var_dump($held->release(), $raw->cmd('EXISTS', $prefix . 'held'));
    // the keys were in the selected database, not in db 0
    var_dump(count(RawConn::tcp('127.0.0.1', $port, $label === 'auth db2' ? $pw : null)->cmd('KEYS', $prefix . '*')));
    unset($dl, $held, $l);
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
foreach ([RawConn::main(3), RawConn::auth(2)] as $c) {
    foreach (($c->cmd('KEYS', 'phpt_171:*') ?: []) as $k) { $c->cmd('DEL', $k); }
}
?>
--EXPECT--
== plain db3
bool(true)
killed: 1
bool(true)
bool(false)
killed: 1
bool(true)
bool(true)
killed: 1
bool(true)
bool(true)
killed: 1
tryLock: consistent=1
key 'new' without TTL: 0
bool(true)
killed: 1
bool(true)
int(0)
killed: 1
bool(true)
int(0)
int(0)
== auth db2
bool(true)
killed: 1
bool(true)
bool(false)
killed: 1
bool(true)
bool(true)
killed: 1
bool(true)
bool(true)
killed: 1
tryLock: consistent=1
key 'new' without TTL: 0
bool(true)
killed: 1
bool(true)
int(0)
killed: 1
bool(true)
int(0)
int(0)
