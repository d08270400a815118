"""Measuring the dice reader: matching readings to labels, the photo-set suite, the detector's
and the classifier's own figures (`cubilete bench vision`). The reader itself is `vision.reader`."""
