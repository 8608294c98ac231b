<?php

declare(strict_types=1);

namespace DistLock\Laravel\Console;

use DistLock\Laravel\DistLockStore;

/**
 * The client a command works on: with --store=NAME, that cache store's lock
 * client (names are Laravel lock names, as in Cache::store(NAME)->lock($name));
 * without, the distlock cache store the app uses (the default cache store
 * when it is a distlock one, else the first distlock store of
 * config/cache.php), so that a name means what Cache::lock($name) means;
 * with no distlock store at all, app(\DistLock::class).
 */
trait ResolvesClient
{
    /** @throws \InvalidArgumentException with a message for the console */
    private function lockClient(): \DistLock
    {
        $storeName = $this->option('store');
        if ($storeName === null || $storeName === '') {
            $storeName = $this->defaultDistLockStore();
            if ($storeName === null) {
                return $this->laravel->make(\DistLock::class);
            }
        }
        if (!is_array($this->laravel['config']["cache.stores.$storeName"] ?? null)) {
            throw new \InvalidArgumentException("Cache store [$storeName] is not defined in config/cache.php.");
        }
        $store = $this->laravel->make('cache')->store($storeName)->getStore();
        if (!$store instanceof DistLockStore) {
            throw new \InvalidArgumentException("Cache store [$storeName] does not use the distlock driver.");
        }
        return $store->lockClient();
    }

    private function defaultDistLockStore(): ?string
    {
        $config = $this->laravel['config'];
        $stores = (array) ($config['cache.stores'] ?? []);
        $default = (string) ($config['cache.default'] ?? '');
        if (($stores[$default]['driver'] ?? null) === 'distlock') {
            return $default;
        }
        foreach ($stores as $name => $store) {
            if (is_array($store) && ($store['driver'] ?? null) === 'distlock') {
                return (string) $name;
            }
        }
        return null;
    }

    /** Runs $body; a bad --store or a failure to reach Redis is a console error, as artisan reports them. */
    private function reporting(callable $body): int
    {
        try {
            return $body();
        } catch (\InvalidArgumentException|\DistLock\Exception|\DistLock\Laravel\InvalidConfigurationException $e) {
            $this->error($e->getMessage());   // artisan's error line (every Laravel version has it)
            return self::FAILURE;
        }
    }
}
