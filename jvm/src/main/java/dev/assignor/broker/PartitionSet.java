package dev.assignor.broker;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * One member's partitions of one topic: an immutable set over an ascending int array, so half a
 * million partitions cost no boxing until the broker reads them (the broker's RangeAssignor hands
 * out an immutable set of its own, so the broker copies what it keeps).
 */
final class PartitionSet extends AbstractSet<Integer> {
    private final int[] ascending;

    PartitionSet(int[] ascending) {
        this.ascending = ascending;
    }

    @Override
    public int size() {
        return ascending.length;
    }

    @Override
    public boolean contains(Object o) {
        return o instanceof Integer && Arrays.binarySearch(ascending, (Integer) o) >= 0;
    }

    @Override
    public Iterator<Integer> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < ascending.length;
            }

            @Override
            public Integer next() {
                if (next >= ascending.length) throw new NoSuchElementException();
                return ascending[next++];
            }
        };
    }

    @Override
    public int hashCode() {
        int h = 0;
        for (int p : ascending) h += p;
        return h;
    }
}
