--TEST--
Scoped release: a Lock going out of scope (return, unset, reassignment, discarded result) releases its key; a kept one does not
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
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_110:';
raw_redis_del_prefix($prefix);
$dl = new DistLock(test_uri(), ['prefix' => $prefix]);
function exists(string $n): int { return raw_redis('EXISTS', 'phpt_110:' . $n); }

// function return: the local Lock dies with the frame
function work(DistLock $dl): int {
    $l = $dl->lock('fn', 30, 1);
    return exists('fn');
}
echo "inside function: ", work($dl), ", after return: ", exists('fn'), "\n";

// a Lock returned from the function and kept by the caller stays held
function acquire(DistLock $dl): DistLock\Lock { return $dl->lock('returned', 30, 1); }
$kept = acquire($dl);
echo "returned and kept: ", exists('returned'), "\n";

// unset
$l = $dl->lock('unset', 30, 1);
echo "before unset: ", exists('unset');
unset($l);
echo ", after unset: ", exists('unset'), "\n";

// reassignment: the old Lock is released, the new one is held
$l = $dl->lock('reassign:a', 30, 1);
$l = $dl->lock('reassign:b', 30, 1);
echo "reassigned: a=", exists('reassign:a'), " b=", exists('reassign:b'), "\n";
$l = null;
echo "set to null: b=", exists('reassign:b'), "\n";

// a result that is never stored is released at once
$dl->lock('discarded', 30, 1);
echo "discarded result: ", exists('discarded'), "\n";

// a second reference keeps it alive; the last one releases
$a = $dl->lock('shared', 30, 1);
$b = $a;
unset($a);
echo "one of two references left: ", exists('shared');
unset($b);
echo ", none left: ", exists('shared'), "\n";

// a Lock in an array element / object property
$bag = ['x' => $dl->lock('in_array', 30, 1)];
$obj = new stdClass; $obj->lock = $dl->lock('in_object', 30, 1);
echo "array+object: ", exists('in_array'), exists('in_object');
unset($bag['x'], $obj);
echo ", after dropping: ", exists('in_array'), exists('in_object'), "\n";

// the DistLock going away does not release a Lock still referenced (it keeps its connection)
$dl2 = new DistLock(test_uri(), ['prefix' => $prefix]);
$orphan = $dl2->lock('orphan', 30, 1);
unset($dl2);
echo "DistLock gone, Lock kept: ", exists('orphan'), " isAcquired=", var_export($orphan->isAcquired(), true), "\n";
var_dump($orphan->release());
echo "released: ", exists('orphan'), "\n";

// a Lock that was released explicitly: destruction does nothing more (someone else's key stays)
$l = $dl->lock('explicit', 30, 1);
$l->release();
raw_redis('SET', $prefix . 'explicit', 'someone-else', 'PX', 30000);
unset($l);
echo "other owner's key after destruct: ", var_export(raw_redis('GET', $prefix . 'explicit'), true), "\n";

// a lock that expired and was taken over is not deleted by the old handle's destructor
$l = $dl->lock('expired', 0.05, 1);
usleep(150000);
raw_redis('SET', $prefix . 'expired', 'new-owner', 'PX', 30000);
unset($l);
echo "taken-over key after old handle's destruct: ", var_export(raw_redis('GET', $prefix . 'expired'), true), "\n";

echo "kept until now: ", exists('returned'), "\n";
unset($kept);
// a scoped release is written, not waited for: the instance's next command reads its reply
$dl->isLocked('returned');
echo "end: ", exists('returned'), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_110:');
?>
--EXPECT--
inside function: 1, after return: 0
returned and kept: 1
before unset: 1, after unset: 0
reassigned: a=0 b=1
set to null: b=0
discarded result: 0
one of two references left: 1, none left: 0
array+object: 11, after dropping: 00
DistLock gone, Lock kept: 1 isAcquired=true
bool(true)
released: 0
other owner's key after destruct: 'someone-else'
taken-over key after old handle's destruct: 'new-owner'
kept until now: 1
end: 0
