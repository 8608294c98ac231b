--TEST--
Names: binary-safe (NUL, newline, UTF-8, 1024 bytes); '' and 1025 bytes are ValueError naming $name
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_021:']);
$names = [
    'nul' => "a\0b",
    'nul-prefix-twin' => "a",            // must not collide with "a\0b"
    'crlf' => "x\r\n*3\r\n\$3\r\nDEL",
    'utf8' => "schlüssel-ключ-鍵",
    'space' => ' ',
    'glob' => '*?[]',
    'max' => str_repeat('n', 1024),
    'max-binary' => str_repeat("\0\xff", 512),
];
$locks = [];
foreach ($names as $label => $n) {
    $l = $d->lock($n, 5, 0);
    $locks[$label] = $l;
    printf("%s: name round-trips %s, key holds token %s\n", $label,
        var_export($l->name() === $n, true),
        var_export(raw_redis('GET', 'phpt_021:' . $n) === $l->token(), true));
}
echo "distinct keys: ", count(array_unique(array_map(fn($l) => $l->token(), $locks))), "\n";
var_dump($d->isLocked("a\0b"), $d->isLocked("a\0c"), $d->tryLock("a\0b") !== null);
foreach ($locks as $label => $l) {
    if (!$l->release()) echo "$label: release failed\n";
}
var_dump(raw_redis_del_prefix('phpt_021:'));

echo "--- invalid names\n";
$bad = ['' => '', '1025 bytes' => str_repeat('n', 1025), '4096 bytes' => str_repeat('n', 4096)];
$calls = [
    'lock' => fn($n) => $d->lock($n),
    'tryLock' => fn($n) => $d->tryLock($n),
    'synchronized' => fn($n) => $d->synchronized($n, fn() => print("callback ran\n")),
    'restore' => fn($n) => $d->restore($n, str_repeat('a', 32)),
    'isLocked' => fn($n) => $d->isLocked($n),
    'forceRelease' => fn($n) => $d->forceRelease($n),
];
foreach ($bad as $label => $n) {
    foreach ($calls as $m => $f) {
        try {
            $f($n);
            echo "$m($label): accepted\n";
        } catch (Throwable $e) {
            echo "$m($label): ", get_class($e), str_contains($e->getMessage(), '($name)') ? ' ($name)' : ': ' . $e->getMessage(), "\n";
        }
    }
}
try { $d->lock(''); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
try { $d->lock(str_repeat('n', 1025)); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
// the prefix does not count against the name limit
$p = new DistLock(test_uri(), ['prefix' => 'phpt_021:' . str_repeat('p', 200)]);
$l = $p->lock(str_repeat('n', 1024), 5, 0);
var_dump(raw_redis('EXISTS', 'phpt_021:' . str_repeat('p', 200) . str_repeat('n', 1024)), $l->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_021:');
?>
--EXPECT--
nul: name round-trips true, key holds token true
nul-prefix-twin: name round-trips true, key holds token true
crlf: name round-trips true, key holds token true
utf8: name round-trips true, key holds token true
space: name round-trips true, key holds token true
glob: name round-trips true, key holds token true
max: name round-trips true, key holds token true
max-binary: name round-trips true, key holds token true
distinct keys: 8
bool(true)
bool(false)
bool(true)
int(0)
--- invalid names
lock(): ValueError ($name)
tryLock(): ValueError ($name)
synchronized(): ValueError ($name)
restore(): ValueError ($name)
isLocked(): ValueError ($name)
forceRelease(): ValueError ($name)
lock(1025 bytes): ValueError ($name)
tryLock(1025 bytes): ValueError ($name)
synchronized(1025 bytes): ValueError ($name)
restore(1025 bytes): ValueError ($name)
isLocked(1025 bytes): ValueError ($name)
forceRelease(1025 bytes): ValueError ($name)
lock(4096 bytes): ValueError ($name)
tryLock(4096 bytes): ValueError ($name)
synchronized(4096 bytes): ValueError ($name)
restore(4096 bytes): ValueError ($name)
isLocked(4096 bytes): ValueError ($name)
forceRelease(4096 bytes): ValueError ($name)
DistLock::lock(): Argument #1 ($name) must not be empty
DistLock::lock(): Argument #1 ($name) must be at most 1024 bytes long
int(1)
bool(true)
