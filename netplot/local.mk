# netplot
