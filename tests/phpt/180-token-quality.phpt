--TEST--
Tokens: 32 lowercase hex chars, no duplicates over many acquires; wrong tokens never release, refresh or restore
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_180:';
raw_redis_del_prefix($prefix);
$dl = new DistLock(test_uri(), ['prefix' => $prefix]);

// 10000 tokens (fewer under valgrind, which is ~20x slower)
$n = is_valgrind() ? 1500 : 10000;
$seen = []; $badFormat = 0; $mismatch = 0; $failed = 0;
for ($i = 0; $i < $n; $i++) {
    $l = $dl->tryLock('t' . ($i % 3), 30);
    if ($l === null) { $failed++; continue; }
    $t = $l->token();
    $badFormat += (int)!preg_match('/\A[0-9a-f]{32}\z/', $t);
    if ($i % 500 === 0) { $mismatch += (int)(raw_redis('GET', $prefix . 't' . ($i % 3)) !== $t); }
    $seen[$t] = true;
    $failed += (int)!$l->release();
}
echo "tokens: ", count($seen) === $n ? 'all distinct' : ($n - count($seen)) . ' duplicates',
     ", bad format: $badFormat, not the stored value: $mismatch, failed cycles: $failed\n";
// bits are spread: every hex digit occurs at every position
$cols = array_fill(0, 32, []);
foreach (array_slice(array_keys($seen), 0, 1000) as $t) {
    for ($p = 0; $p < 32; $p++) { $cols[$p][$t[$p]] = true; }
}
echo "positions with all 16 digits: ", count(array_filter($cols, fn($c) => count($c) === 16)), "/32\n";

// wrong tokens: restore() and the unlock helper refuse, nothing is released or refreshed
$l = $dl->lock('owned', 30, 1);
$h = $dl->lockOwned(7, 30, 1);             // key phpt_180:owned:7
function variants(string $t): array {
    return [
        'random' => bin2hex(random_bytes(16)),
        'one char changed' => substr($t, 0, -1) . ($t[31] === 'a' ? 'b' : 'a'),
        'uppercase' => strtoupper($t) === $t ? $t . 'x' : strtoupper($t),
        'prefix' => substr($t, 0, 31),
        'longer' => $t . '0',
        'with NUL' => $t . "\0",
        'quote' => "'" . $t,
        'lua-ish' => "]] or true --",
        'glob' => '*',
    ];
}
$t = $l->token();
$hv = variants($h->token());
foreach (variants($t) as $what => $w) {
    try {
        $r = $dl->restore('owned', $w);
        echo "$what: RESTORED (", var_export($r->release(), true), ")";
    } catch (DistLock\LockLostException $e) {
        echo "$what: LockLostException";
    } catch (Throwable $e) {
        echo "$what: ", get_class($e), ": ", $e->getMessage();
    }
    echo ", unlock helper: ", var_export($dl->unlockOwned(7, $hv[$what]), true), "\n";
}
var_dump(raw_redis('GET', $prefix . 'owned') === $t, raw_redis('PTTL', $prefix . 'owned') > 25000);
var_dump(raw_redis('GET', $prefix . 'owned:7') === $h->token());
var_dump($dl->unlockOwned(7, $h->token()), raw_redis('EXISTS', $prefix . 'owned:7'));

// the right token: restore adopts it in another instance, the original handle then finds it gone
$other = new DistLock(test_uri(), ['prefix' => $prefix]);
$r = $other->restore('owned', $t);
var_dump($r->token() === $t, $r->refresh(20), raw_redis('PTTL', $prefix . 'owned') <= 20000);
var_dump($r->release(), raw_redis('EXISTS', $prefix . 'owned'));
var_dump($l->release(), $l->refresh(), $l->isAcquired());
// a wrong-token restore against a key held by someone else with a different value
raw_redis('SET', $prefix . 'foreign', 'foreign-token', 'PX', 30000);
try { $dl->restore('foreign', 'FOREIGN-TOKEN'); echo "restored\n"; } catch (DistLock\LockLostException $e) { echo "foreign: LockLostException\n"; }
var_dump(raw_redis('GET', $prefix . 'foreign'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_180:');
?>
--EXPECT--
tokens: all distinct, bad format: 0, not the stored value: 0, failed cycles: 0
positions with all 16 digits: 32/32
random: LockLostException, unlock helper: false
one char changed: LockLostException, unlock helper: false
uppercase: LockLostException, unlock helper: false
prefix: LockLostException, unlock helper: false
longer: LockLostException, unlock helper: false
with NUL: LockLostException, unlock helper: false
quote: LockLostException, unlock helper: false
lua-ish: LockLostException, unlock helper: false
glob: LockLostException, unlock helper: false
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(false)
bool(false)
bool(false)
foreign: LockLostException
string(13) "foreign-token"
