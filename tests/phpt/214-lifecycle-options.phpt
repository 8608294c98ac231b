--TEST--
lifecycle options: watchdog, max_hold, on_lost, fencing, persistent are type- and range-checked; stats() has the watchdog counters
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
$cases = [
  ['watchdog' => 1], ['watchdog' => 'yes'], ['max_hold' => 0], ['max_hold' => -1], ['max_hold' => INF], ['max_hold' => '5'],
  ['max_hold' => 2e9], ['on_lost' => 'warn'], ['on_lost' => true], ['on_lost' => 'THROW'], ['fencing' => 1], ['persistent' => 1],
  ['persistent' => ''], ['persistent' => "a\0b"], ['persistent' => str_repeat('p', 513)], ['persistent' => null],
];
// no server is contacted: connecting is lazy
foreach ($cases as $o) { try { new DistLock('redis://127.0.0.1:1', $o); echo "ok\n"; } catch (Throwable $t) { echo get_class($t), ': ', $t->getMessage(), "\n"; } }
$ok = [['watchdog' => false, 'max_hold' => 0.001, 'on_lost' => 'ignore', 'fencing' => false, 'persistent' => false],
       ['watchdog' => true, 'max_hold' => 1e9, 'on_lost' => 'throw', 'fencing' => true, 'persistent' => 'pool-1'], ['max_hold' => 5]];
foreach ($ok as $o) { try { new DistLock('redis://127.0.0.1:1', $o); echo "ok\n"; } catch (Throwable $t) { echo get_class($t), ': ', $t->getMessage(), "\n"; } }
$s = (new DistLock('redis://127.0.0.1:1'))->stats(); var_dump(is_int($s['renewals']), is_int($s['renewal_round_trips']), is_int($s['lost']));
?>
--EXPECT--
TypeError: DistLock::__construct(): Argument #2 ($options) option "watchdog" must be of type bool, int given
TypeError: DistLock::__construct(): Argument #2 ($options) option "watchdog" must be of type bool, string given
ValueError: DistLock::__construct(): Argument #2 ($options) option "max_hold" must be a finite number of seconds greater than 0 and at most 1000000000
ValueError: DistLock::__construct(): Argument #2 ($options) option "max_hold" must be a finite number of seconds greater than 0 and at most 1000000000
ValueError: DistLock::__construct(): Argument #2 ($options) option "max_hold" must be a finite number of seconds greater than 0 and at most 1000000000
TypeError: DistLock::__construct(): Argument #2 ($options) option "max_hold" must be of type float, string given
ValueError: DistLock::__construct(): Argument #2 ($options) option "max_hold" must be a finite number of seconds greater than 0 and at most 1000000000
ValueError: DistLock::__construct(): Argument #2 ($options) option "on_lost" must be "ignore" or "throw"
TypeError: DistLock::__construct(): Argument #2 ($options) option "on_lost" must be of type string, bool given
ValueError: DistLock::__construct(): Argument #2 ($options) option "on_lost" must be "ignore" or "throw"
TypeError: DistLock::__construct(): Argument #2 ($options) option "fencing" must be of type bool, int given
TypeError: DistLock::__construct(): Argument #2 ($options) option "persistent" must be of type string|bool, int given
ValueError: DistLock::__construct(): Argument #2 ($options) option "persistent" must be a non-empty string of at most 512 bytes without NUL bytes
ValueError: DistLock::__construct(): Argument #2 ($options) option "persistent" must be a non-empty string of at most 512 bytes without NUL bytes
ValueError: DistLock::__construct(): Argument #2 ($options) option "persistent" must be a non-empty string of at most 512 bytes without NUL bytes
TypeError: DistLock::__construct(): Argument #2 ($options) option "persistent" must be of type string|bool, null given
ok
ok
ok
bool(true)
bool(true)
bool(true)
