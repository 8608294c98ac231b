--TEST--
Calls of every size reach the server whole: commands over the 1 KiB stack buffer written directly (the implicit release's EVAL of a 1,000-byte name: about 6 KiB, deferred or not), calls over 8 KiB through hiredis's buffer (releaseAll(), endRequest() of 300 leases), then the connection still in step (issue 46)
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$p = 'phpt_050:';
raw_redis_del_prefix($p);
$keys = fn () => count(raw_redis('KEYS', $p . '*') ?: []);

foreach ([true, false] as $defer) {
    echo "== defer_release ", var_export($defer, true), "\n";
    $d = new DistLock(test_uri(), ['prefix' => $p, 'defer_release' => $defer]);

    // a name of 1,000 bytes: each command is over the 1 KiB stack buffer, under 8 KiB
    $long = str_repeat('n', 1000);
    $l = $d->tryLock($long, 30);
    echo "long name held: ", var_export($l !== null && raw_redis('GET', $p . $long) === $l->token(), true), "\n";
    var_dump($l->release());
    $l = $d->tryLock($long, 30);
    unset($l);                                   // the implicit release (deferred when allowed)
    echo "after the implicit release, held: ", var_export($d->isLocked($long), true), "\n";

    // 300 leases released in one call: one request far over 8 KiB
    $held = [];
    for ($i = 0; $i < 300; $i++) $held[] = $d->tryLock("many:$i:" . str_repeat('x', 40), 30);
    echo "held: ", count(array_filter($held)), ", keys: ", $keys(), "\n";
    echo "releaseAll: ", $d->releaseAll($held), ", keys left: ", $keys(), "\n";

    // and again at the request's end
    $held = [];
    for ($i = 0; $i < 300; $i++) $held[] = $d->tryLock("end:$i:" . str_repeat('y', 40), 30);
    echo "endRequest: ", DistLock::endRequest(), ", keys left: ", $keys(), "\n";
    unset($held);

    // the connection is in step: the next small call gets its own answer
    $l = $d->tryLock('after', 30);
    echo "next call: ", var_export($l !== null && raw_redis('GET', $p . 'after') === $l->token(), true), "\n";
    $l->release();
    unset($d);
}
echo "keys left: ", $keys(), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
raw_redis_del_prefix('phpt_050:');
?>
--EXPECT--
== defer_release true
long name held: true
bool(true)
after the implicit release, held: false
held: 300, keys: 300
releaseAll: 300, keys left: 0
endRequest: 300, keys left: 0
next call: true
== defer_release false
long name held: true
bool(true)
after the implicit release, held: false
held: 300, keys: 300
releaseAll: 300, keys left: 0
endRequest: 300, keys left: 0
next call: true
keys left: 0
