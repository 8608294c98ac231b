<?php

declare(strict_types=1);

// A lock holder in another process: holder.php REDIS NAME SECONDS.
// Takes the mutex NAME, prints "held", keeps it SECONDS, releases it.
// No observer here: its events are not the test's.
[, $redis, $name, $seconds] = $argv;
$locks = new DistLock($redis, ['prefix' => 'otel-test:']);
$lock = $locks->lock($name, 30, 5);
echo "held\n";
fflush(STDOUT);
usleep((int) ((float) $seconds * 1e6));
$lock->release();
