--TEST--
Scoped release: a Lock releases when its last reference goes; a Lock outlives its DistLock safely
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
; These checks look from another connection right after an implicit release:
; confirmed releases (the deferred ones are tested, deterministically, by 041-043).
distlock.defer_release=0
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_033:']);
function ex(string $k): int { return raw_redis('EXISTS', "phpt_033:$k"); }

$l = $d->lock('unset', 5);
$copy = $l;
unset($l);
echo "one reference left: ", ex('unset'), "\n";
unset($copy);
echo "after last unset: ", ex('unset'), "\n";

function work(DistLock $d) {
    $l = $d->lock('scope', 5);
    echo "in function: ", ex('scope'), "\n";
}
work($d);
echo "after return: ", ex('scope'), "\n";

$d->lock('temp', 5);          // result thrown away: released at once
echo "discarded result: ", ex('temp'), "\n";

$l = $d->lock('reassign', 5);
$l = $d->lock('reassign2', 5);
echo "overwritten variable: ", ex('reassign'), " ", ex('reassign2'), "\n";
$l = null;
echo "set to null: ", ex('reassign2'), "\n";

// a destructor does not delete a lease that another owner holds by now
$o = new DistLock(test_uri(), ['prefix' => 'phpt_033:']);
$l = $d->lock('taken', 0.05);
usleep(120000);
$h = $o->lock('taken', 5);
unset($l);
echo "other owner's key survives our destructor: ", var_export(raw_redis('GET', 'phpt_033:taken') === $h->token(), true), "\n";
$h->release();

// reentrant handles: only the last one's destruction deletes the key
$a = $d->lock('re', 5);
$b = $d->lock('re', 5);
unset($a);
echo "one of two handles gone: ", ex('re'), "\n";
unset($b);
echo "both gone: ", ex('re'), "\n";

// the Lock keeps working after its DistLock is gone
$tmp = new DistLock(test_uri(), ['prefix' => 'phpt_033:']);
$l = $tmp->lock('orphan', 5);
unset($tmp);
gc_collect_cycles();
var_dump($l->isAcquired(), $l->refresh(3), $l->remainingLifetime() > 2.5);
var_dump($l->release(), ex('orphan'));
$tmp = new DistLock(test_uri(), ['prefix' => 'phpt_033:']);
$l = $tmp->lock('orphan2', 5);
unset($tmp);
unset($l);
echo "orphan released by destructor: ", ex('orphan2'), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_033:');
?>
--EXPECT--
one reference left: 1
after last unset: 0
in function: 1
after return: 0
discarded result: 0
overwritten variable: 0 1
set to null: 0
other owner's key survives our destructor: true
one of two handles gone: 1
both gone: 0
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
orphan released by destructor: 0
