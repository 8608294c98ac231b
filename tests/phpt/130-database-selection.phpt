--TEST--
Database selection: /db in the URI, options['database'], the URI beats the option, unix:// with ?db=
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if ((string)getenv('DISTLOCK_TEST_REDIS_PORT') === '') die('skip DISTLOCK_TEST_REDIS_PORT is not set');
if ((string)getenv('DISTLOCK_TEST_REDIS_SOCK') === '') die('skip DISTLOCK_TEST_REDIS_SOCK is not set');
?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_130:';
$port = (int)env_or_fail('DISTLOCK_TEST_REDIS_PORT');
$sock = env_or_fail('DISTLOCK_TEST_REDIS_SOCK');
$raw = [];
foreach ([0, 2, 3, 5] as $db) {
    $raw[$db] = RawConn::main($db);
    foreach (($raw[$db]->cmd('KEYS', $prefix . '*') ?: []) as $k) { $raw[$db]->cmd('DEL', $k); }
}

function where(string $label, string $uri, array $opt = []): void {
    global $raw, $prefix;
    $dl = new DistLock($uri, $opt + ['prefix' => $prefix]);
    $l = $dl->tryLock($label, 30);
    $in = [];
    foreach ($raw as $db => $c) {
        if ($c->cmd('GET', $prefix . $label) === $l->token()) { $in[] = $db; }
    }
    // the instance itself sees its own database
    $seen = $dl->isLocked($label);
    printf("%-14s db=%s isLocked=%d other_instance_same_db=%s", $label, implode(',', $in), $seen,
        (new DistLock($uri, $opt + ['prefix' => $prefix]))->tryLock($label, 30) === null ? 'blocked' : 'ACQUIRED');
    printf(" released=%d left=%d\n", $l->release(), $raw[$in[0] ?? 0]->cmd('EXISTS', $prefix . $label));
}

where('default', "redis://127.0.0.1:$port");
where('uri3', "redis://127.0.0.1:$port/3");
where('option5', "redis://127.0.0.1:$port", ['database' => 5]);
where('uri_beats_opt', "redis://127.0.0.1:$port/3", ['database' => 5]);
where('uri0_beats', "redis://127.0.0.1:$port/0", ['database' => 5]);
where('unix', "unix://$sock");
where('unix_db2', "unix://$sock?db=2");
where('unix_opt5', "unix://$sock", ['database' => 5]);
where('unix_db2_beats', "unix://$sock?db=2", ['database' => 5]);

// the same name in two databases: two independent locks
$a = (new DistLock("redis://127.0.0.1:$port/2", ['prefix' => $prefix]))->tryLock('same', 30);
$b = (new DistLock("redis://127.0.0.1:$port/3", ['prefix' => $prefix]))->tryLock('same', 30);
var_dump($a !== null, $b !== null, $a->token() !== $b->token());
var_dump($raw[2]->cmd('GET', $prefix . 'same') === $a->token(), $raw[3]->cmd('GET', $prefix . 'same') === $b->token());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
foreach ([0, 2, 3, 5] as $db) {
    $c = RawConn::main($db);
    foreach (($c->cmd('KEYS', 'phpt_130:*') ?: []) as $k) { $c->cmd('DEL', $k); }
}
?>
--EXPECT--
default        db=0 isLocked=1 other_instance_same_db=blocked released=1 left=0
uri3           db=3 isLocked=1 other_instance_same_db=blocked released=1 left=0
option5        db=5 isLocked=1 other_instance_same_db=blocked released=1 left=0
uri_beats_opt  db=3 isLocked=1 other_instance_same_db=blocked released=1 left=0
uri0_beats     db=0 isLocked=1 other_instance_same_db=blocked released=1 left=0
unix           db=0 isLocked=1 other_instance_same_db=blocked released=1 left=0
unix_db2       db=2 isLocked=1 other_instance_same_db=blocked released=1 left=0
unix_opt5      db=5 isLocked=1 other_instance_same_db=blocked released=1 left=0
unix_db2_beats db=2 isLocked=1 other_instance_same_db=blocked released=1 left=0
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
