<?php
// Stand-ins for two packages laravel/framework 12.x needs that the partial
// Packagist copy of this machine does not serve. Loaded only by the scratch
// app of the test command, never by the package:
//  - symfony/polyfill-php85: the PHP 8.5 functions Laravel 12 calls;
//  - symfony/clock: the interface nesbot/carbon 3 implements.

namespace Symfony\Component\Clock {
    if (!interface_exists(ClockInterface::class)) {
        interface ClockInterface extends \Psr\Clock\ClockInterface
        {
            public function sleep(float|int $seconds): void;

            public function withTimeZone(\DateTimeZone|string $timezone): static;
        }
    }
}

namespace {

if (!function_exists('array_first')) {
    function array_first(array $array): mixed
    {
        foreach ($array as $value) {
            return $value;
        }
        return null;
    }
}
if (!function_exists('array_last')) {
    function array_last(array $array): mixed
    {
        return $array === [] ? null : $array[array_key_last($array)];
    }
}
if (!function_exists('get_error_handler')) {
    function get_error_handler(): ?callable
    {
        $h = set_error_handler(static fn () => false);
        restore_error_handler();
        return $h;
    }
}
if (!function_exists('get_exception_handler')) {
    function get_exception_handler(): ?callable
    {
        $h = set_exception_handler(null);
        set_exception_handler($h);
        return $h;
    }
}
}
