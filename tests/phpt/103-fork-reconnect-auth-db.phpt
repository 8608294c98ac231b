--TEST--
fork(): the child's new connection authenticates and selects the database again (auth server, db 4)
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
foreach (['DISTLOCK_TEST_REDIS_AUTH_PORT', 'DISTLOCK_TEST_REDIS_PASSWORD'] as $v) {
    if ((string)getenv($v) === '') die("skip $v is not set");
}
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_103:';
$port = (int)env_or_fail('DISTLOCK_TEST_REDIS_AUTH_PORT');
$pw = env_or_fail('DISTLOCK_TEST_REDIS_PASSWORD');
$raw = RawConn::auth(4);
foreach (($raw->cmd('KEYS', $prefix . '*') ?: []) as $k) { $raw->cmd('DEL', $k); }

foreach (['uri' => ["redis://:" . rawurlencode($pw) . "@127.0.0.1:$port/4", []],
          'options' => ["redis://127.0.0.1:$port", ['password' => $pw, 'database' => 4]]] as $how => [$uri, $opt]) {
    $dl = new DistLock($uri, $opt + ['prefix' => $prefix]);
    $lock = $dl->lock("parent:$how", 60, 1);
    $pid = fork_child(function () use ($dl, $how) {
        $c = RawConn::auth(4);
        $r = [];
        $r[] = 'isLocked=' . (int)$dl->isLocked("parent:$how");
        $l = $dl->tryLock("child:$how", 30);
        $r[] = 'in_db4=' . (int)($l !== null && $c->cmd('GET', "phpt_103:child:$how") === $l->token());
        $r[] = 'released=' . (int)($l !== null && $l->release());
        $c->cmd('SET', "phpt_103:result:$how", implode(' ', $r));
        return 0;
    });
    echo "$how: child ", wait_child($pid), " ", $raw->cmd('GET', $prefix . "result:$how"),
         " parent_holds=", (int)($lock->isAcquired() && $raw->cmd('GET', $prefix . "parent:$how") === $lock->token()), "\n";
    var_dump($lock->release());
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
$c = RawConn::auth(4);
foreach (($c->cmd('KEYS', 'phpt_103:*') ?: []) as $k) { $c->cmd('DEL', $k); }
?>
--EXPECT--
uri: child exit=0 isLocked=1 in_db4=1 released=1 parent_holds=1
bool(true)
options: child exit=0 isLocked=1 in_db4=1 released=1 parent_holds=1
bool(true)
