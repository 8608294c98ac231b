<?php
/* One read-modify-write of a counter file under the lock "rmw" (?nolock=1:
 * without it, to show what the lock prevents). The pause between read and
 * write is where an unlocked update gets lost. */
require __DIR__ . '/lib.inc';
$file = fpm_data('counter');
$update = function () use ($file) {
    $n = (int)@file_get_contents($file);
    usleep(1000);
    file_put_contents($file, (string)($n + 1));
};
if (fpm_param('nolock') === '1') {
    $update();
} else {
    fpm_locks()->synchronized('rmw', $update, 10.0, 60.0);
}
echo "ok\n";
