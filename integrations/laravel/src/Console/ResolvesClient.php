<?php

declare(strict_types=1);

namespace DistLock\Laravel\Console;

use DistLock\Laravel\DistLockStore;

/**
 * The client a command works on: with --store=NAME, that cache store's lock
 * client (names are Laravel lock names, as in Cache::store(NAME)->lock($name));
 * without, app(\DistLock::class) (prefix distlock.options.prefix).
 */
trait ResolvesClient
{
    private function lockClient(): \DistLock
    {
        $storeName = $this->option('store');
        if ($storeName === null || $storeName === '') {
            return $this->laravel->make(\DistLock::class);
        }
        $store = $this->laravel->make('cache')->store($storeName)->getStore();
        if (!$store instanceof DistLockStore) {
            throw new \InvalidArgumentException("Cache store [$storeName] does not use the distlock driver.");
        }
        return $store->lockClient();
    }
}
