--TEST--
Observer: every kind (shared, exclusive, permits, multi) in try and wait forms, synchronized(), the __call helpers, wrong_kind, releaseAll(); one event per operation
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_501:');
$events = [];
DistLock::addObserver(function (DistLock\Event $e) use (&$events) { $events[] = $e; });
function show(): void {
    global $events;
    foreach ($events as $e) {
        printf("  %s %s %s [%s] %s ttl=%s permits=%s held=%s implicit=%d wait>0=%d rt=%s\n", $e->operation, $e->kind,
            $e->name, implode(',', $e->names), $e->outcome, var_export($e->ttl, true), var_export($e->permits, true),
            $e->heldNs === null ? 'null' : ($e->heldNs > 0 ? '>0' : 'BAD'), (int)$e->implicit, (int)($e->waitNs > 0),
            $e->roundTrips > 0 ? '>0' : '0');
    }
    $events = [];
}
$d = new DistLock(test_uri(), ['prefix' => 'phpt_501:', 'resources' => ['report' => ['ttl' => 4]]]);
$o = new DistLock(test_uri(), ['prefix' => 'phpt_501:']);
$w = new DistLock(test_uri(), ['prefix' => 'phpt_501:']);   // a writer that holds nothing (an own shared lease would be upgraded)

echo "shared\n";
$s1 = $d->lockShared('rw', 5);
$s2 = $o->tryLockShared('rw', 6);
var_dump($w->tryLockExclusive('rw'));
try { $w->lockExclusive('rw', 5, 0.2); } catch (DistLock\LockTimeoutException $x) { echo "  timeout\n"; }
$s1->release();
$s2->release();
show();

echo "exclusive\n";
$x = $d->lockExclusive('rw', 5);
var_dump($o->tryLockShared('rw'));
$x->refresh(6);
$x->release();
show();

echo "permits\n";
$p = $d->acquirePermits('sem', 3, 2, 5);
var_dump($o->tryAcquirePermits('sem', 3, 2));
$q = $o->acquirePermits('sem', 3, 1);
$p->release();
$q->release();
show();

echo "wrong kind\n";
$m = $d->lock('mx', 5);
try { $o->tryLockShared('mx'); } catch (DistLock\LockKindException $x) { echo "  LockKindException\n"; }
$m->release();
show();

echo "multi\n";
$all = $d->lockAll(['a', 'b', 'c'], 5);
var_dump($o->tryLockAll(['c', 'd']));
var_dump($d->releaseAll($all));
show();

echo "synchronized (deferred: its release told when its reply is read, at the next call; not deferred: at once)\n";
$d->synchronized('sy', function () { echo "  in\n"; }, 5);
show();
$nd = new DistLock(test_uri(), ['prefix' => 'phpt_501:', 'defer_release' => false]);
$nd->synchronized('sy', function () { echo "  in\n"; });
show();

echo "helpers\n";
$h = $d->lockReport(7);
var_dump($o->tryLockReport(7));
var_dump($o->unlockReport(7, $h->token()));
show();
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_501:');
?>
--EXPECT--
shared
NULL
  timeout
  acquire shared rw [rw] acquired ttl=5.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  acquire shared rw [rw] acquired ttl=6.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  acquire exclusive rw [rw] conflict ttl=30.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  acquire exclusive rw [rw] timeout ttl=5.0 permits=NULL held=null implicit=0 wait>0=1 rt=>0
  release shared rw [rw] released ttl=NULL permits=NULL held=>0 implicit=0 wait>0=0 rt=>0
  release shared rw [rw] released ttl=NULL permits=NULL held=>0 implicit=0 wait>0=0 rt=>0
exclusive
NULL
  acquire exclusive rw [rw] acquired ttl=5.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  acquire shared rw [rw] conflict ttl=30.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  refresh exclusive rw [rw] refreshed ttl=6.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  release exclusive rw [rw] released ttl=NULL permits=NULL held=>0 implicit=0 wait>0=0 rt=>0
permits
NULL
  acquire permits sem [sem] acquired ttl=5.0 permits=2 held=null implicit=0 wait>0=0 rt=>0
  acquire permits sem [sem] conflict ttl=30.0 permits=2 held=null implicit=0 wait>0=0 rt=>0
  acquire permits sem [sem] acquired ttl=30.0 permits=1 held=null implicit=0 wait>0=0 rt=>0
  release permits sem [sem] released ttl=NULL permits=2 held=>0 implicit=0 wait>0=0 rt=>0
  release permits sem [sem] released ttl=NULL permits=1 held=>0 implicit=0 wait>0=0 rt=>0
wrong kind
  LockKindException
  acquire mutex mx [mx] acquired ttl=5.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  acquire shared mx [mx] wrong_kind ttl=30.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  release mutex mx [mx] released ttl=NULL permits=NULL held=>0 implicit=0 wait>0=0 rt=>0
multi
NULL
int(3)
  acquire multi a [a,b,c] acquired ttl=5.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  acquire multi c [c,d] conflict ttl=30.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  release mutex a [a] released ttl=NULL permits=NULL held=>0 implicit=0 wait>0=0 rt=>0
  release mutex b [b] released ttl=NULL permits=NULL held=>0 implicit=0 wait>0=0 rt=0
  release mutex c [c] released ttl=NULL permits=NULL held=>0 implicit=0 wait>0=0 rt=0
synchronized (deferred: its release told when its reply is read, at the next call; not deferred: at once)
  in
  acquire mutex sy [sy] acquired ttl=5.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  in
  acquire mutex sy [sy] acquired ttl=30.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  release mutex sy [sy] released ttl=NULL permits=NULL held=>0 implicit=1 wait>0=0 rt=>0
helpers
NULL
bool(true)
  release mutex sy [sy] released ttl=NULL permits=NULL held=>0 implicit=1 wait>0=0 rt=0
  acquire mutex report:7 [report:7] acquired ttl=4.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  acquire mutex report:7 [report:7] conflict ttl=30.0 permits=NULL held=null implicit=0 wait>0=0 rt=>0
  release mutex report:7 [report:7] released ttl=NULL permits=NULL held=null implicit=0 wait>0=0 rt=>0
