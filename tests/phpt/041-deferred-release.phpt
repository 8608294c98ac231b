--TEST--
Deferred implicit releases: written without waiting, read before the next command, at pool return, at request end; fork, watchdog, ordering, loss, and the switch (option, INI)
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
$p = 'phpt_041:';
raw_redis_del_prefix($p);
$d = new DistLock(test_uri(), ['prefix' => $p]);
$delta = function (array $before, string $k) use ($d) { return $d->stats()[$k] - $before[$k]; };

// 1. a scoped release is written, not waited for: counted when the next command reads its reply
$s = $d->stats();
$l = $d->lock('a', 5);
unset($l);
echo "1. released before the next command: ", $delta($s, 'released');
$d->isLocked('other');
echo ", after it: ", $delta($s, 'released'), ", key left: ", raw_redis('EXISTS', $p . 'a'), "\n";

// 2. synchronized() releases the same way, on return and when the callback throws
$s = $d->stats();
$r = $d->synchronized('sync', fn () => 'value');
echo "2. returned ", $r, "; released before the next command: ", $delta($s, 'released');
try { $d->synchronized('sync', function () { throw new LogicException('boom'); }); } catch (LogicException $e) { echo "; rethrown"; }
$d->isLocked('other');
echo "; after it: ", $delta($s, 'released'), ", key left: ", raw_redis('EXISTS', $p . 'sync'), "\n";

// 3. ordering: the instance's own next lock() of the name is granted (its release went first)
$granted = 0;
for ($i = 0; $i < 50; $i++) {
    $l = $d->lock('order', 5);
    unset($l);
    $granted += $d->tryLock('order', 5) !== null ? 1 : 0;   // (destroyed at once: a deferred release again)
}
echo "3. tryLock() right after a scoped release of the same name: granted $granted/50\n";

// 4. a lease lost meanwhile is counted as lost, when the reply is read
$d->isLocked('other');                            // (reads what section 3 still owes)
$s = $d->stats();
$l = $d->lock('lost', 0.05);
usleep(100000);
unset($l);
$d->isLocked('other');
echo "4. expired lease: released +", $delta($s, 'released'), ", lost +", $delta($s, 'lost'), "\n";

// 5. the switch: option defer_release => false, INI distlock.defer_release=0: confirmed at once
$sync = new DistLock(test_uri(), ['prefix' => $p, 'defer_release' => false]);
$s = $d->stats();
$l = $sync->lock('sw', 5);
unset($l);
echo "5. option off: released at once +", $delta($s, 'released');
ini_set('distlock.defer_release', '0');
$ini = new DistLock(test_uri(), ['prefix' => $p]);
ini_set('distlock.defer_release', '1');
$l = $ini->lock('sw', 5);
unset($l);
echo ", INI off +", $delta($s, 'released');
$on = new DistLock(test_uri(), ['prefix' => $p, 'defer_release' => true]);
$l = $on->lock('sw', 5);
unset($l);
echo ", option on +", $delta($s, 'released'), "\n";
$on->isLocked('sw');
try { new DistLock(test_uri(), ['defer_release' => 'yes']); } catch (TypeError $e) { echo "   ", $e->getMessage(), "\n"; }

// 6. a persistent connection goes back to its pool only after its replies are read
$s = $d->stats();
$pd = new DistLock(test_uri(), ['prefix' => $p, 'persistent' => 'phpt041']);
$l = $pd->lock('pool', 5);
unset($l);
$before = $delta($s, 'released');
unset($pd);
echo "6. pooled: released before the instance went +$before, after +", $delta($s, 'released');
$pd = new DistLock(test_uri(), ['prefix' => $p, 'persistent' => 'phpt041']);   // the same connection
$l = $pd->tryLock('pool', 5);
echo "; the next user of the connection: granted ", var_export($l !== null && $pd->owner('pool') === $l->token(), true), "\n";
unset($l, $pd);

// 7. fork() with a reply owed: the child never reads it; the parent does
$s = $d->stats();
$l = $d->lock('fork', 5);
unset($l);                                        // owed on $d's connection
$pid = fork_child(function () use ($d, $s) {
    $child = $d->tryLock('fork-child', 5);        // the child's own connection
    $stats = $d->stats();
    return ($child !== null ? 0 : 1) | ($stats['released'] === $s['released'] ? 0 : 2);
});
echo "7. child: ", wait_child($pid);
$d->isLocked('other');
echo "; parent: released +", $delta($s, 'released'), ", key left: ", raw_redis('EXISTS', $p . 'fork'), "\n";
$ok = 0;
for ($i = 0; $i < 200; $i++) {                   // each reply answers its own command
    $l = $d->tryLock('seq', 5);
    $ok += ($l !== null && $d->owner('seq') === $l->token()) ? 1 : 0;
    unset($l);
}
echo "   parent's next 200 lock/owner/release cycles: $ok/200 right\n";

// 8. the end of the script reads what is owed (the DistLock is freed with its request): counted then
$uri = var_export(test_uri(), true);
[$rc, $out] = run_php_child(<<<PHP
<?php
class Probe {   // a global made before \$d is destroyed after it (reverse order)
    function __destruct() { echo " at the end: ", (new DistLock($uri))->stats()['released'], "\\n"; }
}
\$probe = new Probe;
\$d = new DistLock($uri, ['prefix' => '$p']);
\$l = \$d->lock('end', 30);
unset(\$l);                                       // written; its reply is owed
echo "released before the end: ", \$d->stats()['released'];
PHP);
echo "8. request end: exit $rc, $out", "   key left: ", raw_redis('EXISTS', $p . 'end'), "\n";

// 9. the watchdog stops renewing a lease at its deferred release
$w = new DistLock(test_uri(), ['prefix' => $p, 'watchdog' => true]);
$s = $d->stats();
$l = $w->lock('wd', 0.6);
unset($l);
usleep(700000);                                   // more than a renewal period (0.2 s)
$w->isLocked('other');
echo "9. watchdog: key left: ", raw_redis('EXISTS', $p . 'wd'), ", released +", $delta($s, 'released'), ", lost +", $delta($s, 'lost'), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_041:');
?>
--EXPECT--
1. released before the next command: 0, after it: 1, key left: 0
2. returned value; released before the next command: 0; rethrown; after it: 2, key left: 0
3. tryLock() right after a scoped release of the same name: granted 50/50
4. expired lease: released +0, lost +1
5. option off: released at once +1, INI off +2, option on +2
   DistLock::__construct(): Argument #2 ($options) option "defer_release" must be of type bool, string given
6. pooled: released before the instance went +0, after +1; the next user of the connection: granted true
7. child: exit=0; parent: released +1, key left: 0
   parent's next 200 lock/owner/release cycles: 200/200 right
8. request end: exit 0, released before the end: 0 at the end: 1
   key left: 0
9. watchdog: key left: 0, released +1, lost +0
